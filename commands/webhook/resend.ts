import { Args } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { resendDelivery, type DeliveryView } from '../../src/webhooks/service.js';

export default class WebhookResend extends PaygateCommand {
  static override description =
    'Send a failed webhook delivery again (same webhook-id, a new 3-day retry window); the running serve delivers it';
  static override examples = [
    '<%= config.bin %> webhook resend dlv_0123456789abcdef01234567',
    '<%= config.bin %> webhook deliveries --status failed && <%= config.bin %> webhook resend <delivery_id>',
  ];
  static override args = { delivery_id: Args.string({ required: true, description: 'delivery id (dlv_…)' }) };

  async run(): Promise<DeliveryView> {
    const { args } = await this.parse(WebhookResend);
    const ctx = await this.context();
    const d = await resendDelivery(ctx.database.db, ctx.clock, ctx.actor, args.delivery_id);
    this.say(record(d as unknown as Record<string, unknown>));
    return d;
  }
}
