/** SQL for deposits: one row per transfer into a deposit address, keyed by (tx_hash, log_index). */
import { sql, type Selectable } from 'kysely';
import type { Executor, Tx } from '../db/database.js';
import type { DepositsTable } from '../db/schema.js';

export type DepositRow = Selectable<DepositsTable>;

/** The ledger's source_ref of a deposit's credit: UNIQUE, so a deposit is booked at most once. */
export const depositRef = (d: Pick<DepositRow, 'tx_hash' | 'log_index'>) => `deposit:${d.tx_hash}:${d.log_index}`;

/** Inserts a new deposit; false when (tx_hash, log_index) is already recorded. */
export async function insertDeposit(db: Tx, row: DepositRow): Promise<boolean> {
  const inserted = await db
    .insertInto('deposits')
    .values(row)
    .onConflict((oc) => oc.columns(['tx_hash', 'log_index']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findDeposit(db: Executor, txHash: string, logIndex: number): Promise<DepositRow | undefined> {
  return db
    .selectFrom('deposits')
    .selectAll()
    .where('tx_hash', '=', txHash)
    .where('log_index', '=', logIndex)
    .executeTakeFirst();
}

/**
 * The same transfer in another block (re-included after a fork): the row becomes live again there.
 * `content` too when the new fork's transfer differs (a contract's logs depend on the state it
 * runs against): the row, never final and so never credited, takes it whole.
 */
export async function moveDeposit(
  db: Tx,
  id: string,
  block: { block_number: number; block_hash: string; block_time: string; late: number },
  now: string,
  content: Partial<
    Pick<
      DepositRow,
      'merchant_id' | 'address' | 'asset' | 'decimals' | 'amount' | 'from_address' | 'invoice_id' | 'external_user_id'
    >
  > = {},
): Promise<void> {
  await db
    .updateTable('deposits')
    .set({ ...content, ...block, status: 'seen', confirmations: 0, final: 0, updated_at: now })
    .where('id', '=', id)
    .where('final', '=', 0)
    .execute();
}

/** Deposits of an invoice that count (not orphaned), in chain order. */
export async function liveDepositsOfInvoice(db: Executor, invoiceId: string): Promise<DepositRow[]> {
  return liveDepositsOfInvoices(db, [invoiceId]);
}

/** Live deposits of these invoices, in chain order (one query for a page of invoices). */
export async function liveDepositsOfInvoices(db: Executor, invoiceIds: string[]): Promise<DepositRow[]> {
  if (invoiceIds.length === 0) return [];
  return db
    .selectFrom('deposits')
    .selectAll()
    .where('invoice_id', 'in', invoiceIds)
    .where('status', '!=', 'orphaned')
    .orderBy('block_number')
    .orderBy('tx_hash')
    .orderBy('log_index')
    .execute();
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
    .where(
      sql<boolean>`(d.confirmations < ${at.head} - d.block_number + 1 or (d.final = 0 and d.block_number <= ${at.solid}) or d.final = 1)`,
    )
    .orderBy('d.block_number')
    .execute();
}

export async function updateProgress(
  db: Tx,
  id: string,
  p: Pick<DepositRow, 'confirmations' | 'final' | 'status'>,
  now: string,
): Promise<void> {
  await db
    .updateTable('deposits')
    .set({ confirmations: p.confirmations, final: p.final, status: p.status, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Orphans the live, not final deposits of blocks above `block`; returns them. */
export async function orphanAbove(db: Tx, block: number, now: string): Promise<DepositRow[]> {
  const rows = await db
    .selectFrom('deposits')
    .selectAll()
    .where('block_number', '>', block)
    .where('status', '!=', 'orphaned')
    .where('final', '=', 0)
    .execute();
  if (rows.length > 0) {
    await db
      .updateTable('deposits')
      .set({ status: 'orphaned', confirmations: 0, updated_at: now })
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
  }
  return rows;
}

export async function markCredited(db: Tx, id: string, amount: bigint, fee: bigint | null, now: string): Promise<void> {
  await db
    .updateTable('deposits')
    .set({
      credited_at: now,
      credited_amount: amount.toString(),
      fee_amount: fee === null ? null : fee.toString(),
      updated_at: now,
    })
    .where('id', '=', id)
    .where('credited_at', 'is', null)
    .execute();
}
