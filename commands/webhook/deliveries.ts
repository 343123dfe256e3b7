import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idFlag } from '../../src/cli/flags.js';
import { table } from '../../src/cli/format.js';
import { DELIVERY_STATUSES, deliveries, type DeliveryView } from '../../src/webhooks/service.js';

export default class WebhookDeliveries extends PaygateCommand {
  static override description = 'List webhook deliveries, newest first (e.g. --status failed for the ones to resend)';
  static override examples = [
    '<%= config.bin %> webhook deliveries --status failed',
    '<%= config.bin %> webhook deliveries --merchant 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --json',
  ];
  static override flags = {
    merchant: idFlag('only deliveries of this merchant'),
    status: Flags.string({ options: [...DELIVERY_STATUSES], description: 'only deliveries in this status' }),
    limit: Flags.integer({ default: 100, min: 1, max: 10000, description: 'at most this many' }),
  };

  async run(): Promise<DeliveryView[]> {
    const { flags } = await this.parse(WebhookDeliveries);
    const ctx = await this.context();
    const rows = await deliveries(ctx.database.db, {
      ...(flags.merchant ? { merchantId: flags.merchant } : {}),
      ...(flags.status ? { status: flags.status as DeliveryView['status'] } : {}),
      limit: flags.limit,
    });
    this.say(
      table(rows as unknown as Array<Record<string, unknown>>, [
        'delivery_id',
        'merchant_id',
        'type',
        'status',
        'attempts',
        'last_status_code',
        'next_attempt_at',
        'created_at',
      ]),
    );
    return rows;
  }
}
