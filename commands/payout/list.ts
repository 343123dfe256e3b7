import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idFlag } from '../../src/cli/flags.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { toPage } from '../../src/http/pagination.js';
import { pageLimit, pageRequest } from '../../src/operators/paging.js';
import { listPayouts, type OperatorPayoutView } from '../../src/payouts/operator.js';
import { PAYOUT_STATUSES } from '../../src/payouts/schema.js';

export default class PayoutList extends PaygateCommand {
  static override description =
    'List payouts, newest first, a page at a time (e.g. --status pending_review for the review queue). The table shows id, status, asset, amount and address; --json gives every field (fees, review reasons, txid, wait and hold reasons)';
  static override examples = ['<%= config.bin %> payout list --status pending_review'];
  static override flags = {
    status: Flags.string({ options: [...PAYOUT_STATUSES], description: 'only payouts in this status' }),
    merchant: idFlag('only payouts of this merchant'),
    ...pageFlags,
  };

  async run(): Promise<Paged<OperatorPayoutView>> {
    const { flags } = await this.parse(PayoutList);
    const q = pageQuery(flags);
    const ctx = await this.context();
    const request = pageRequest(q);
    const rows = await listPayouts(ctx.database.db, {
      ...(flags.status ? { status: flags.status } : {}),
      ...(flags.merchant ? { merchantId: flags.merchant } : {}),
      limit: request.limit,
      after: request.after,
    });
    const page = toPage(rows, pageLimit(q), (p) => ({ at: p.created_at, id: p.payout_id }));
    // About 115 columns: the rest of each payout is in --json.
    this.say(
      pageTable(
        page as unknown as Paged<Record<string, unknown>>,
        ['payout_id', 'status', 'asset', 'amount', 'to_address'],
        this,
      ),
    );
    return page;
  }
}
