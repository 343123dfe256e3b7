import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idFlag } from '../../src/cli/flags.js';
import { record, table } from '../../src/cli/format.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { toPage } from '../../src/http/pagination.js';
import { pageLimit, pageRequest } from '../../src/operators/paging.js';
import { listUnknownOnChain, type UnknownOnChain } from '../../src/restore/chain-reading.js';
import { listPayouts, type OperatorPayoutView } from '../../src/payouts/operator.js';
import { PAYOUT_STATUSES } from '../../src/payouts/schema.js';

export default class PayoutList extends PaygateCommand {
  static override description =
    'List payouts, newest first, a page at a time (e.g. --status pending_review for the review queue). The table shows id, status, asset, amount and address; --json gives every field (fees, review reasons, txid, wait and hold reasons). With --unknown-on-chain: the payouts held since a restore that the chain did not settle, each with its candidate transfers out of the hot wallet, and the transfers out that paygate did not sign';
  static override examples = [
    '<%= config.bin %> payout list --status pending_review',
    '<%= config.bin %> payout list --unknown-on-chain',
  ];
  static override flags = {
    status: Flags.string({ options: [...PAYOUT_STATUSES], description: 'only payouts in this status' }),
    merchant: idFlag('only payouts of this merchant'),
    ...pageFlags,
    'unknown-on-chain': Flags.boolean({
      default: false,
      exclusive: ['status', 'merchant', 'cursor'],
      description:
        'the payouts held since a restore with their candidate transfers out of the hot wallet (the chain reading and what it left for the operator)',
    }),
  };

  async run(): Promise<Paged<OperatorPayoutView> | UnknownOnChain> {
    const { flags } = await this.parse(PayoutList);
    const q = pageQuery(flags);
    const ctx = await this.context();
    if (flags['unknown-on-chain']) return this.unknownOnChain(await listUnknownOnChain(ctx.database.db));
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

  /** What the chain reading after a restore left for the operator: a report, not a list of payouts. */
  private unknownOnChain(found: UnknownOnChain): UnknownOnChain {
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
}
