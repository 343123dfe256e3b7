import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idFlag } from '../../src/cli/flags.js';
import { record, table } from '../../src/cli/format.js';
import { listUnknownOnChain, type UnknownOnChain } from '../../src/payouts/chain-reading.js';
import { listPayouts, type OperatorPayoutView } from '../../src/payouts/operator.js';
import { PAYOUT_STATUSES } from '../../src/payouts/schema.js';

export default class PayoutList extends PaygateCommand {
  static override description =
    'List payouts, newest first (e.g. --status pending_review for the review queue). With --unknown-on-chain: the payouts held since a restore that the chain did not settle, each with its candidate transfers out of the hot wallet, and the transfers out that paygate did not sign';
  static override examples = [
    '<%= config.bin %> payout list --status pending_review',
    '<%= config.bin %> payout list --unknown-on-chain',
  ];
  static override flags = {
    status: Flags.string({ options: [...PAYOUT_STATUSES], description: 'only payouts in this status' }),
    merchant: idFlag('only payouts of this merchant'),
    limit: Flags.integer({ default: 100, min: 1, max: 10000, description: 'at most this many' }),
    'unknown-on-chain': Flags.boolean({
      default: false,
      exclusive: ['status', 'merchant'],
      description:
        'the payouts held since a restore with their candidate transfers out of the hot wallet (the chain reading and what it left for the operator)',
    }),
  };

  async run(): Promise<OperatorPayoutView[] | UnknownOnChain> {
    const { flags } = await this.parse(PayoutList);
    const ctx = await this.context();
    if (flags['unknown-on-chain']) {
      const found = await listUnknownOnChain(ctx.database.db);
      this.say(
        record({
          reading: found.reading,
          reading_from_block: found.reading_from_block ?? '',
          reading_until_block: found.reading_until_block ?? '',
        }),
      );
      this.say(
        table(
          found.payouts.map((p) => ({ ...p, candidates: p.candidates.map((c) => c.tx_hash).join(',') || 'none' })),
          ['payout_id', 'merchant_id', 'status', 'asset', 'amount', 'to_address', 'candidates', 'hold_reason'],
        ),
      );
      if (found.unknown_transfers.length > 0)
        this.say(
          `\nTransfers out of the hot wallet that paygate did not sign:\n${table(found.unknown_transfers, ['tx_hash', 'asset', 'amount', 'to_address', 'block_number'])}`,
        );
      return found;
    }
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
