import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idFlag } from '../../src/cli/flags.js';
import { table } from '../../src/cli/format.js';
import { listPayouts, type OperatorPayoutView } from '../../src/payouts/operator.js';
import { PAYOUT_STATUSES } from '../../src/payouts/schema.js';

export default class PayoutList extends PaygateCommand {
  static override description = 'List payouts, newest first (e.g. --status pending_review for the review queue)';
  static override examples = ['<%= config.bin %> payout list --status pending_review'];
  static override flags = {
    status: Flags.string({ options: [...PAYOUT_STATUSES], description: 'only payouts in this status' }),
    merchant: idFlag('only payouts of this merchant'),
    limit: Flags.integer({ default: 100, min: 1, max: 10000, description: 'at most this many' }),
  };

  async run(): Promise<OperatorPayoutView[]> {
    const { flags } = await this.parse(PayoutList);
    const ctx = await this.context();
    const rows = await listPayouts(ctx.database.db, {
      ...(flags.status ? { status: flags.status } : {}),
      ...(flags.merchant ? { merchantId: flags.merchant } : {}),
      limit: flags.limit,
    });
    this.say(
      table(
        rows.map((r) => ({ ...r, fee: r.fees.network.amount, review_reasons: r.review_reasons.join(',') })),
        [
          'payout_id',
          'merchant_id',
          'status',
          'asset',
          'amount',
          'fee',
          'to_address',
          'review_reasons',
          'created_at',
          'tx_hash',
          'wait_reason',
          'hold_reason',
        ],
      ),
    );
    return rows;
  }
}
