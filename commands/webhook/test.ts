import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { sendTestEvent, type TestResult } from '../../src/webhooks/service.js';

export default class WebhookTest extends PaygateCommand {
  static override description =
    "Send a signed webhook.test event to a merchant's endpoint now and print the receiver's answer";
  static override examples = ['<%= config.bin %> webhook test <merchant_id> --json'];
  static override args = { merchant: idArg('merchant id') };

  async run(): Promise<TestResult> {
    const { args } = await this.parse(WebhookTest);
    const ctx = await this.context();
    const r = await sendTestEvent(ctx.database.db, ctx.clock, args.merchant, { actor: ctx.actor });
    this.say(record(r as unknown as Record<string, unknown>));
    return r;
  }
}
