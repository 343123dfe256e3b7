/**
 * Payments to the addresses of a restore's derivation gap (restore/derivation-gap.ts): recorded for the
 * operator (`paygate deposit list --unattributed`), never credited, never attached to an invoice,
 * never announced to a merchant. Whose money it is only the operator can find out.
 */
import type { Clock } from '../clock.js';
import type { Executor, Tx } from '../db/database.js';
import { dropUnattributedExceptions, unattributedDeposit } from '../exceptions/deposits.js';
import { formatUnits } from '../money.js';
import type { UnattributedDepositsTable } from '../db/tables/derivation-gaps.js';

export type UnattributedDepositRow = Omit<UnattributedDepositsTable, 'id'>;

/**
 * Call inside the watcher's write transaction; a transfer already recorded stays as it is. A new
 * one is the operator's `unattributed` exception, in the same transaction.
 */
export async function recordUnattributedDeposit(trx: Tx, clock: Clock, row: UnattributedDepositRow): Promise<void> {
  const inserted = await trx
    .insertInto('unattributed_deposits')
    .values(row)
    .onConflict((oc) => oc.columns(['tx_hash', 'log_index']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) await unattributedDeposit(trx, clock, { ...row, id: inserted.id });
}

/** A fork replaced the blocks above `ancestor`: their payments are no longer on the chain. */
export async function dropUnattributedAbove(trx: Tx, ancestor: number): Promise<void> {
  const gone = await trx
    .selectFrom('unattributed_deposits')
    .select('id')
    .where('block_number', '>', ancestor)
    .execute();
  await dropUnattributedExceptions(
    trx,
    gone.map((r) => r.id),
  );
  await trx.deleteFrom('unattributed_deposits').where('block_number', '>', ancestor).execute();
}

export interface UnattributedDepositView {
  tx_hash: string;
  log_index: number;
  address: string;
  derivation_index: number;
  asset: string;
  /** In the asset's units, e.g. "12.5". */
  amount: string;
  from_address: string | null;
  block_number: number;
  block_time: string;
  detected_at: string;
}

/** Newest first. */
export async function listUnattributedDeposits(db: Executor, limit: number): Promise<UnattributedDepositView[]> {
  const rows = await db
    .selectFrom('unattributed_deposits as d')
    .innerJoin('unattributed_addresses as a', 'a.address', 'd.address')
    .select([
      'd.tx_hash',
      'd.log_index',
      'd.address',
      'a.derivation_index',
      'd.asset',
      'd.amount',
      'd.decimals',
      'd.from_address',
      'd.block_number',
      'd.block_time',
      'd.detected_at',
    ])
    .orderBy('d.block_number', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(({ decimals, amount, ...r }) => ({ ...r, amount: formatUnits(amount, decimals) }));
}
