import { Args } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { record, table } from '../../src/cli/format.js';
import { showDelivery, type AttemptView, type DeliveryView } from '../../src/webhooks/service.js';

export default class WebhookShow extends PaygateCommand {
  static override description =
    'Show a webhook delivery and every attempt (time, status code, duration, response excerpt)';
  static override examples = [
    '<%= config.bin %> webhook show dlv_0123456789abcdef01234567',
    '<%= config.bin %> webhook show evt_0123456789abcdef01234567 --json',
  ];
  static override args = {
    id: Args.string({ required: true, description: 'delivery id (dlv_…) or event id (evt_…, the webhook-id header)' }),
  };

  async run(): Promise<DeliveryView & { attempts_log: AttemptView[] }> {
    const { args } = await this.parse(WebhookShow);
    const ctx = await this.context();
    const d = await showDelivery(ctx.database.db, args.id);
    const { attempts_log, ...rest } = d;
    this.say(
      `${record(rest)}\n\n${table(attempts_log as unknown as Array<Record<string, unknown>>, ['attempt', 'at', 'status_code', 'duration_ms', 'outcome', 'error', 'response_excerpt'])}`,
    );
    return d;
  }
}
