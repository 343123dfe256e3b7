/**
 * SQL of the sweeper: sweeps, their transactions, per-address marks, requests and thresholds.
 * The sweeper's own writes take the database (its fenced handle under the worker lease) and are
 * each a write transaction of their own, so each is checked against the lease.
 */
import { sql } from 'kysely';
import { findDepositAddresses } from '../addresses/store.js';
import { writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import { byValue } from '../db/portable.js';
import type {
  SweepMarksTable,
  SweepRequestsTable,
  SweepRequestTarget,
  SweepsTable,
  SweepTxsTable,
} from '../db/tables/sweeper.js';

export type SweepRow = SweepsTable;
export type SweepTxRow = Omit<SweepTxsTable, 'id'> & { id: number };
export type SweepRequestRow = SweepRequestsTable;

/** A deposit address and asset with final confirmed deposits the sweeper has not looked at yet. */
export interface DuePair {
  address: string;
  asset: string;
  last_block: number;
}

/** Final confirmed deposits above their pair's mark (or unmarked), to be grouped by pair. */
function dueQuery(db: Executor) {
  return db
    .selectFrom('deposits as d')
    .leftJoin('sweep_marks as m', (j) => j.onRef('m.address', '=', 'd.address').onRef('m.asset', '=', 'd.asset'))
    .select(['d.address', 'd.asset', sql<number>`max(d.block_number)`.as('last_block')])
    .where('d.final', '=', 1)
    .where('d.status', '=', 'confirmed')
    .where((eb) => eb.or([eb('m.checked_block', 'is', null), eb('d.block_number', '>', eb.ref('m.checked_block'))]));
}

/**
 * Pairs with final deposits updated (e.g. turned final) since `since`: the sweeper's look at what is
 * new, through `deposits_final_by_update`. Older ones are the full scan's to find (scan.ts).
 */
export async function duePairsSince(db: Executor, since: string, limit: number): Promise<DuePair[]> {
  // Grouped by value (SQLite's unary +, which keeps no index on the column for this term), not by
  // column: without ANALYZE statistics (serve never runs it) SQLite would otherwise walk all of
  // deposits_final_by_address to spare a sort of a few rows.
  return dueQuery(db)
    .where('d.updated_at', '>=', since)
    .groupBy([byValue(db, 'd.address'), byValue(db, 'd.asset')])
    .orderBy('d.address')
    .limit(limit)
    .execute();
}

/** Where the full scan stands: after every asset of `address` (asset null), or after that one pair. */
export interface ScanCursor {
  address: string;
  asset: string | null;
}

/**
 * The address of the `size`-th final deposit after `after`: where a slice of the full scan ends.
 * Reads the index `deposits_final_by_address` only. Undefined: fewer are left (the last slice).
 */
export async function sliceEnd(db: Executor, after: string, size: number): Promise<string | undefined> {
  const r = await db
    .selectFrom('deposits')
    .select('address')
    .where('final', '=', 1)
    .where('address', '>', after)
    .orderBy('address')
    .limit(1)
    .offset(size - 1)
    .executeTakeFirst();
  return r?.address;
}

/** Due pairs after `from` up to and including the address `through` (undefined: to the end). */
export async function duePairsInSlice(
  db: Executor,
  from: ScanCursor,
  through: string | undefined,
  limit: number,
): Promise<DuePair[]> {
  const { address, asset } = from;
  let q = dueQuery(db);
  q =
    asset === null
      ? q.where('d.address', '>', address)
      : q.where((eb) => eb(eb.refTuple('d.address', 'd.asset'), '>', eb.tuple(address, asset)));
  if (through !== undefined) q = q.where('d.address', '<=', through);
  // Ordered as the cursor is, so a slice cut short by `limit` resumes after its last pair.
  return q.groupBy(['d.address', 'd.asset']).orderBy('d.address').orderBy('d.asset').limit(limit).execute();
}

/** Pairs the sweeper found holding something below the threshold. */
export async function nonEmptyMarks(db: Executor): Promise<SweepMarksTable[]> {
  // A literal, as the partial index sweep_marks_held says it: only then may SQLite use it.
  return db.selectFrom('sweep_marks').selectAll().where('balance', '!=', sql.lit('0')).execute();
}

export async function upsertMark(db: Db, m: SweepMarksTable): Promise<void> {
  await writeTx(db, (trx) =>
    trx
      .insertInto('sweep_marks')
      .values(m)
      .onConflict((oc) =>
        oc.columns(['address', 'asset']).doUpdateSet({
          checked_block: sql<number>`case when sweep_marks.checked_block > excluded.checked_block then sweep_marks.checked_block else excluded.checked_block end`,
          balance: m.balance,
          checked_at: m.checked_at,
        }),
      )
      .execute(),
  );
}

export async function setMarkBalance(
  db: Db,
  address: string,
  asset: string,
  balance: string,
  at: string,
): Promise<void> {
  await writeTx(db, (trx) =>
    trx
      .updateTable('sweep_marks')
      .set({ balance, checked_at: at })
      .where('address', '=', address)
      .where('asset', '=', asset)
      .execute(),
  );
}

/** The derivation index of a deposit address. */
export async function depositIndexOf(db: Executor, address: string): Promise<number | undefined> {
  return (await findDepositAddresses(db, [address]))[0]?.derivation_index;
}

export async function insertSweep(db: Db, row: SweepRow): Promise<void> {
  await writeTx(db, (trx) => trx.insertInto('sweeps').values(row).execute());
}

export async function findSweep(db: Executor, id: string): Promise<SweepRow | undefined> {
  return db.selectFrom('sweeps').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function openSweepOf(db: Executor, address: string): Promise<SweepRow | undefined> {
  return db
    .selectFrom('sweeps')
    .selectAll()
    .where('address', '=', address)
    .where('status', '=', 'open')
    .executeTakeFirst();
}

/** Open sweeps that may act now (not waiting for a retry time). */
export async function activeSweeps(db: Executor, now: string, limit: number): Promise<SweepRow[]> {
  return db
    .selectFrom('sweeps')
    .selectAll()
    .where('status', '=', 'open')
    .where((eb) => eb.or([eb('retry_at', 'is', null), eb('retry_at', '<=', now)]))
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

export async function updateSweep(db: Db, id: string, set: Partial<SweepRow>): Promise<boolean> {
  return writeTx(db, (trx) => updateOpenSweep(trx, id, set));
}

/** Within a transaction: `set` on the sweep while it is open; false once it is not. */
export async function updateOpenSweep(trx: Tx, id: string, set: Partial<SweepRow>): Promise<boolean> {
  const r = await trx
    .updateTable('sweeps')
    .set(set)
    .where('id', '=', id)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function sweepsOfRequest(db: Executor, requestId: string): Promise<SweepRow[]> {
  return db.selectFrom('sweeps').selectAll().where('request_id', '=', requestId).orderBy('created_at').execute();
}

export async function txsOf(db: Executor, sweepId: string): Promise<SweepTxRow[]> {
  return (await db
    .selectFrom('sweep_txs')
    .selectAll()
    .where('sweep_id', '=', sweepId)
    .orderBy('seq')
    .execute()) as SweepTxRow[];
}

export async function insertTx(db: Tx, row: Omit<SweepTxRow, 'id'>): Promise<void> {
  await db.insertInto('sweep_txs').values(row).execute();
}

/** Compare-and-set on the transaction's status: a second resolver changes nothing. */
export async function updateTx(
  db: Db,
  id: number,
  from: SweepTxRow['status'][],
  set: Partial<Omit<SweepTxRow, 'id'>>,
): Promise<boolean> {
  const r = await writeTx(db, (trx) =>
    trx.updateTable('sweep_txs').set(set).where('id', '=', id).where('status', 'in', from).executeTakeFirst(),
  );
  return Number(r.numUpdatedRows) === 1;
}

export async function pendingRequest(db: Executor): Promise<SweepRequestRow | undefined> {
  return db
    .selectFrom('sweep_requests')
    .selectAll()
    .where('status', 'in', ['pending', 'running'])
    .orderBy('created_at')
    .executeTakeFirst();
}

export async function findRequest(db: Executor, id: string): Promise<SweepRequestRow | undefined> {
  return db.selectFrom('sweep_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertRequest(db: Tx, row: SweepRequestRow): Promise<void> {
  await db.insertInto('sweep_requests').values(row).execute();
}

export async function updateRequest(
  db: Db,
  id: string,
  status: SweepRequestRow['status'],
  targets: SweepRequestTarget[],
  at: string,
): Promise<void> {
  await writeTx(db, (trx) =>
    trx
      .updateTable('sweep_requests')
      .set({ status, targets: JSON.stringify(targets), updated_at: at })
      .where('id', '=', id)
      .execute(),
  );
}

export async function storedThreshold(db: Executor, asset: string): Promise<bigint | undefined> {
  const r = await db.selectFrom('sweep_thresholds').select('threshold').where('asset', '=', asset).executeTakeFirst();
  return r ? BigInt(r.threshold) : undefined;
}

export async function upsertThreshold(db: Tx, asset: string, threshold: bigint, at: string): Promise<void> {
  await db
    .insertInto('sweep_thresholds')
    .values({ asset, threshold: threshold.toString(), updated_at: at })
    .onConflict((oc) => oc.column('asset').doUpdateSet({ threshold: threshold.toString(), updated_at: at }))
    .execute();
}

/** Addresses with a deposit in `asset` (final, confirmed) whose latest block is above the mark. */
export async function unsweptDepositTotals(db: Executor): Promise<{ asset: string; amount: string }[]> {
  return db
    .selectFrom('deposits as d')
    .leftJoin('sweep_marks as m', (j) => j.onRef('m.address', '=', 'd.address').onRef('m.asset', '=', 'd.asset'))
    .select(['d.asset', 'd.amount'])
    .where('d.final', '=', 1)
    .where('d.status', '=', 'confirmed')
    .where((eb) => eb.or([eb('m.checked_block', 'is', null), eb('d.block_number', '>', eb.ref('m.checked_block'))]))
    .execute();
}

/** Highest block of a final confirmed deposit to this address in this asset (null: none). */
export async function lastFinalBlock(db: Executor, address: string, asset: string): Promise<number | null> {
  const r = await db
    .selectFrom('deposits')
    .select(sql<number | null>`max(block_number)`.as('b'))
    .where('address', '=', address)
    .where('asset', '=', asset)
    .where('final', '=', 1)
    .where('status', '=', 'confirmed')
    .executeTakeFirst();
  return r?.b ?? null;
}
