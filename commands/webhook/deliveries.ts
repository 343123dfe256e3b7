import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idFlag } from '../../src/cli/flags.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { toPage } from '../../src/http/pagination.js';
import { pageLimit, pageRequest } from '../../src/operators/paging.js';
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
    ...pageFlags,
  };

  async run(): Promise<Paged<DeliveryView>> {
    const { flags } = await this.parse(WebhookDeliveries);
    const q = pageQuery(flags);
    const ctx = await this.context();
    const rows = await deliveries(ctx.database.db, {
      ...(flags.merchant ? { merchantId: flags.merchant } : {}),
      ...(flags.status ? { status: flags.status as DeliveryView['status'] } : {}),
      page: pageRequest(q),
    });
    const page = toPage(rows, pageLimit(q), (d) => ({ at: d.created_at, id: d.delivery_id }));
    this.say(
      pageTable(
        page as unknown as Paged<Record<string, unknown>>,
        [
          'delivery_id',
          'merchant_id',
          'type',
          'status',
          'attempts',
          'last_status_code',
          'next_attempt_at',
          'created_at',
        ],
        this,
      ),
    );
    return page;
  }
}
