/**
 * SQL of the reserves check: what the books say, read in keyset batches (the check visits every
 * deposit, payout and sweep transaction once, holding one batch at a time), and the recorded
 * checks. Amounts are TEXT base units, summed as bigint by the caller.
 */
import { sql } from 'kysely';
import type { Executor, Tx } from '../db/database.js';
import type { ReserveChecksTable } from '../db/tables/accounting.js';

/** The next `limit` distinct addresses that received a deposit, after `after`, in address order. */
export async function depositAddressBatch(db: Executor, after: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('deposits')
    .select('address')
    .where('address', '>', after)
    .groupBy('address')
    .orderBy('address')
    .limit(limit)
    .execute();
  return rows.map((r) => r.address);
}

export interface DepositFigures {
  address: string;
  asset: string;
  amount: string;
  block_number: number;
  credited_amount: string | null;
}

/** The live deposits (not orphaned) of these addresses. */
export async function depositsAt(db: Executor, addresses: string[]): Promise<DepositFigures[]> {
  if (addresses.length === 0) return [];
  return db
    .selectFrom('deposits')
    .select(['address', 'asset', 'amount', 'block_number', 'credited_amount'])
    .where('address', 'in', addresses)
    .where('status', '!=', 'orphaned')
    .execute();
}

/** What the sweeper last found at these addresses: a balance at a block, per asset. */
export async function marksAt(
  db: Executor,
  addresses: string[],
): Promise<{ address: string; asset: string; checked_block: number; balance: string }[]> {
  if (addresses.length === 0) return [];
  return db
    .selectFrom('sweep_marks')
    .select(['address', 'asset', 'checked_block', 'balance'])
    .where('address', 'in', addresses)
    .execute();
}

/** Those of these addresses the sweeper sent TRX to (a top-up for fees): they may keep some TRX. */
export async function toppedUpAmong(db: Executor, addresses: string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await db
    .selectFrom('sweeps')
    .select('address')
    .distinct()
    .where('address', 'in', addresses)
    .where('top_up', '!=', '0')
    .execute();
  return new Set(rows.map((r) => r.address));
}

/** Payments to the addresses of a restore's derivation gap (few: read whole). */
export async function unattributedDeposits(
  db: Executor,
): Promise<{ address: string; asset: string; amount: string }[]> {
  return db.selectFrom('unattributed_deposits').select(['address', 'asset', 'amount']).orderBy('id').execute();
}

/** Every ledger account's balance (credits − debits), one index search per account. */
export async function accountBalances(db: Executor): Promise<{ asset: string; balance: string }[]> {
  const out: { asset: string; balance: string }[] = [];
  let after: { merchant_id: string; asset: string } | undefined;
  for (;;) {
    let q = db.selectFrom('ledger_entries').select(['merchant_id', 'asset']);
    const a = after;
    if (a) q = q.where((eb) => eb(eb.refTuple('merchant_id', 'asset'), '>', eb.tuple(a.merchant_id, a.asset)));
    const next = await q.orderBy('merchant_id').orderBy('asset').limit(1).executeTakeFirst();
    if (!next) return out;
    const last = await db
      .selectFrom('ledger_entries')
      .select('balance_after')
      .where('merchant_id', '=', next.merchant_id)
      .where('asset', '=', next.asset)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    out.push({ asset: next.asset, balance: last.balance_after });
    after = next;
  }
}

export interface PayoutFigures {
  id: string;
  asset: string;
  status: string;
  amount: string;
  fee_charged: string;
  network_fee: string | null;
  fee_limit: string | null;
}

/** Payouts after `after` by id, `limit` at a time. */
export async function payoutBatch(db: Executor, after: string, limit: number): Promise<PayoutFigures[]> {
  return db
    .selectFrom('payouts')
    .select(['id', 'asset', 'status', 'amount', 'fee_charged', 'network_fee', 'fee_limit'])
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** TRX burned by sweep transactions (sun) after `after` by id, `limit` at a time. */
export async function sweepFeeBatch(
  db: Executor,
  after: number,
  limit: number,
): Promise<{ id: number; fee: string | null }[]> {
  return db.selectFrom('sweep_txs').select(['id', 'fee']).where('id', '>', after).orderBy('id').limit(limit).execute();
}

export async function insertCheck(db: Tx, rows: ReserveChecksTable[]): Promise<void> {
  // Two checks started in the same millisecond: the first one's record stands.
  if (rows.length > 0)
    await db
      .insertInto('reserve_checks')
      .values(rows)
      .onConflict((oc) => oc.columns(['checked_at', 'asset']).doNothing())
      .execute();
}

/** The assets of the latest recorded check. */
export async function latestCheck(db: Executor): Promise<ReserveChecksTable[]> {
  const last = await db
    .selectFrom('reserve_checks')
    .select(sql<string | null>`max(checked_at)`.as('at'))
    .executeTakeFirst();
  if (!last?.at) return [];
  return db.selectFrom('reserve_checks').selectAll().where('checked_at', '=', last.at).orderBy('asset').execute();
}
