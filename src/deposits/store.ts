/** SQL for deposits: one row per transfer into a deposit address, keyed by (tx_hash, log_index). */
import { sql, type Selectable } from 'kysely';
import type { Executor } from '../db/database.js';
import { everyColumnBound, prepare, type NamesEveryColumn } from '../db/prepared.js';
import type { DepositsTable } from '../db/schema.js';

export type DepositRow = Selectable<DepositsTable>;

/** The ledger's source_ref of a deposit's credit: UNIQUE, so a deposit is booked at most once. */
export const depositRef = (d: Pick<DepositRow, 'tx_hash' | 'log_index'>) => `deposit:${d.tx_hash}:${d.log_index}`;

const DEPOSIT_COLUMNS = [
  'id',
  'merchant_id',
  'address',
  'asset',
  'decimals',
  'amount',
  'tx_hash',
  'log_index',
  'from_address',
  'block_number',
  'block_hash',
  'block_time',
  'invoice_id',
  'external_user_id',
  'late',
  'status',
  'confirmations',
  'final',
  'credited_at',
  'credited_amount',
  'fee_amount',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof DepositRow)[];
const everyColumn: NamesEveryColumn<DepositRow, (typeof DEPOSIT_COLUMNS)[number]> = true;
const insert = prepare(everyColumn && DEPOSIT_COLUMNS, (db, p) =>
  db
    .insertInto('deposits')
    .values(everyColumnBound<(typeof DEPOSIT_COLUMNS)[number], DepositRow>(DEPOSIT_COLUMNS, p))
    .onConflict((oc) => oc.columns(['tx_hash', 'log_index']).doNothing())
    .returning('id'),
);

/** Inserts a new deposit; false when (tx_hash, log_index) is already recorded. */
export async function insertDeposit(db: Executor, row: DepositRow): Promise<boolean> {
  return (await insert.run(db, row)).rows.length > 0;
}


const byTransfer = prepare(['tx', 'log'], (db, p) => db.selectFrom('deposits').selectAll().where('tx_hash', '=', p('tx')).where('log_index', '=', p('log')));

export async function findDeposit(db: Executor, txHash: string, logIndex: number): Promise<DepositRow | undefined> {
  return byTransfer.first(db, { tx: txHash, log: logIndex }) as Promise<DepositRow | undefined>;
}

/**
 * The same transfer in another block (re-included after a fork): the row becomes live again there.
 * `content` too when the new fork's transfer differs (a contract's logs depend on the state it
 * runs against): the row, never final and so never credited, takes it whole.
 */
export async function moveDeposit(
  db: Executor,
  id: string,
  block: { block_number: number; block_hash: string; block_time: string; late: number },
  now: string,
  content: Partial<Pick<DepositRow, 'merchant_id' | 'address' | 'asset' | 'decimals' | 'amount' | 'from_address' | 'invoice_id' | 'external_user_id'>> = {},
): Promise<void> {
  await db
    .updateTable('deposits')
    .set({ ...content, ...block, status: 'seen', confirmations: 0, final: 0, updated_at: now })
    .where('id', '=', id)
    .where('final', '=', 0)
    .execute();
}

// Every GET /v1/invoices/{id} runs it: built once (db/prepared.ts).
const liveOfInvoice = prepare(['invoice'], (db, p) =>
  db
    .selectFrom('deposits')
    .selectAll()
    .where('invoice_id', '=', p('invoice'))
    .where('status', '!=', 'orphaned')
    .orderBy('block_number')
    .orderBy('tx_hash')
    .orderBy('log_index'),
);

/** Deposits of an invoice that count (not orphaned), in chain order. */
export async function liveDepositsOfInvoice(db: Executor, invoiceId: string): Promise<DepositRow[]> {
  return liveOfInvoice.all(db, { invoice: invoiceId }) as Promise<DepositRow[]>;
}

/**
 * Live deposits whose progress may change now: not yet final or not yet credited, scanned (up to
 * `scannedTo`), and either counted fewer confirmations than `head` gives them, or reaching the
 * `solid` height, or final but not yet credited. A deposit recorded in a catch-up below the solid
 * block waits there, unchanged, until the scan reaches it: not read again by every commit
 * meanwhile. With their merchant's confirmations policy. The first WHERE is the partial index
 * `deposits_unsettled`'s, term for term (migration 0037): any other spelling and SQLite reads
 * every deposit.
 */
export async function unsettledDeposits(db: Executor, at: { head: number; solid: number; scannedTo: number }) {
  return db
    .selectFrom('deposits as d')
    .innerJoin('merchants as m', 'm.id', 'd.merchant_id')
    .selectAll('d')
    .select('m.confirmations as policy')
    .where(sql<boolean>`(d.final = 0 or d.credited_at is null) and d.status != 'orphaned'`)
    .where('d.block_number', '<=', at.scannedTo)
    .where(sql<boolean>`(d.confirmations < ${at.head} - d.block_number + 1 or (d.final = 0 and d.block_number <= ${at.solid}) or d.final = 1)`)
    .orderBy('d.block_number')
    .execute();
}

// The watcher's statements run once per deposit per block batch: built once (db/prepared.ts).
const progress = prepare(['confirmations', 'final', 'status', 'now', 'id'], (db, p) =>
  db.updateTable('deposits').set({ confirmations: p('confirmations'), final: p('final'), status: p('status'), updated_at: p('now') }).where('id', '=', p('id')),
);

export async function updateProgress(db: Executor, id: string, p: Pick<DepositRow, 'confirmations' | 'final' | 'status'>, now: string): Promise<void> {
  await progress.run(db, { ...p, now, id });
}

/** Orphans the live, not final deposits of blocks above `block`; returns them. */
export async function orphanAbove(db: Executor, block: number, now: string): Promise<DepositRow[]> {
  const rows = await db.selectFrom('deposits').selectAll().where('block_number', '>', block).where('status', '!=', 'orphaned').where('final', '=', 0).execute();
  if (rows.length > 0) {
    await db
      .updateTable('deposits')
      .set({ status: 'orphaned', confirmations: 0, updated_at: now })
      .where('id', 'in', rows.map((r) => r.id))
      .execute();
  }
  return rows;
}

const credited = prepare(['now', 'amount', 'fee', 'id'], (db, p) =>
  db
    .updateTable('deposits')
    .set({ credited_at: p('now'), credited_amount: p('amount'), fee_amount: p('fee'), updated_at: p('now') })
    .where('id', '=', p('id'))
    .where('credited_at', 'is', null),
);

export async function markCredited(db: Executor, id: string, amount: bigint, fee: bigint | null, now: string): Promise<void> {
  await credited.run(db, { now, amount: amount.toString(), fee: fee === null ? null : fee.toString(), id });
}
