/** SQL for refunds. Every read a merchant or owner can trigger takes merchant_id; the others say whose. */
import type { Executor, Tx } from '../db/database.js';
import { afterKey } from '../db/keyset.js';
import type { RefundsTable, RefundStatus } from '../db/tables/refunds.js';
import type { PageKey } from '../http/pagination.js';

export type RefundRow = RefundsTable;

/** Statuses whose amount still counts against what the invoice credited. */
export const LIVE: readonly RefundStatus[] = ['awaiting_address', 'requested', 'sent'];

export async function insertRefund(db: Tx, row: RefundRow): Promise<void> {
  await db.insertInto('refunds').values(row).execute();
}

/** A refund by id; scoped to a merchant when `merchantId` is given (null: the operator, the claim page). */
export async function findRefund(db: Executor, id: string, merchantId: string | null): Promise<RefundRow | undefined> {
  let q = db.selectFrom('refunds').selectAll().where('id', '=', id);
  if (merchantId !== null) q = q.where('merchant_id', '=', merchantId);
  return q.executeTakeFirst();
}

export async function refundOfPayout(db: Executor, payoutId: string): Promise<RefundRow | undefined> {
  return db.selectFrom('refunds').selectAll().where('payout_id', '=', payoutId).executeTakeFirst();
}

/** The live refund that cites an exception, if any: at most one may (docs/refunds.md). */
export async function liveRefundOfException(db: Executor, exceptionId: string): Promise<RefundRow | undefined> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('exception_id', '=', exceptionId)
    .where('status', 'in', LIVE)
    .executeTakeFirst();
}

/** The sum (base units) of an invoice's live refunds in an asset. */
export async function liveRefunded(db: Executor, invoiceId: string, asset: string): Promise<bigint> {
  const rows = await db
    .selectFrom('refunds')
    .select('amount')
    .where('invoice_id', '=', invoiceId)
    .where('asset', '=', asset)
    .where('status', 'in', LIVE)
    .execute();
  return rows.reduce((t, r) => t + BigInt(r.amount), 0n);
}

export interface RefundFilter {
  merchantId?: string;
  invoiceId?: string;
  status?: RefundStatus;
  limit: number;
  after?: PageKey | null;
}

/** Newest first. */
export async function listRefunds(db: Executor, f: RefundFilter): Promise<RefundRow[]> {
  let q = db.selectFrom('refunds').selectAll();
  if (f.merchantId) q = q.where('merchant_id', '=', f.merchantId);
  if (f.invoiceId) q = q.where('invoice_id', '=', f.invoiceId);
  if (f.status) q = q.where('status', '=', f.status);
  const after = f.after;
  if (after) q = q.where((eb) => afterKey(eb, 'created_at', 'id', after, 'desc'));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
}

/** Refunds waiting for an address past their term (the expiry job), oldest first. */
export async function overdueRefunds(db: Executor, now: string, limit: number): Promise<RefundRow[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('status', '=', 'awaiting_address')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** Compare-and-set: moves the refund from `from` with `patch`; false when it was no longer in `from`. */
export async function moveRefund(
  db: Tx,
  id: string,
  from: RefundStatus,
  patch: Partial<RefundRow> & { status: RefundStatus; updated_at: string },
): Promise<boolean> {
  const r = await db
    .updateTable('refunds')
    .set(patch)
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** What a foreign deposit at the invoice's address credited in `asset` (after its fee), base units. */
export async function foreignCredited(
  db: Executor,
  merchantId: string,
  address: string,
  asset: string,
): Promise<bigint> {
  const rows = await db
    .selectFrom('deposits')
    .select('credited_amount')
    .where('merchant_id', '=', merchantId)
    .where('address', '=', address)
    .where('asset', '=', asset)
    .where('invoice_id', 'is', null)
    .where('credited_at', 'is not', null)
    .execute();
  return rows.reduce((t, r) => t + BigInt(r.credited_amount ?? '0'), 0n);
}
