/** SQL for invoices. Every read a merchant can trigger is scoped by merchant_id. */
import type { Executor } from '../db/database.js';
import { prepare } from '../db/prepared.js';
import type { InvoicesTable, InvoiceStatus } from '../db/schema.js';

export type InvoiceRow = InvoicesTable;

export async function insertInvoice(db: Executor, row: InvoiceRow): Promise<void> {
  await db.insertInto('invoices').values(row).execute();
}

// Per request (GET, and the replay check of every creation): built once, see db/prepared.ts.
const byId = prepare(['id', 'merchant'], (db, p) => db.selectFrom('invoices').selectAll().where('id', '=', p('id')).where('merchant_id', '=', p('merchant')));
const byOrder = prepare(['merchant', 'order'], (db, p) => db.selectFrom('invoices').selectAll().where('merchant_id', '=', p('merchant')).where('order_id', '=', p('order')));

export async function findInvoice(db: Executor, merchantId: string, id: string): Promise<InvoiceRow | undefined> {
  return byId.first(db, { id, merchant: merchantId });
}

export async function findInvoiceByOrder(db: Executor, merchantId: string, orderId: string): Promise<InvoiceRow | undefined> {
  return byOrder.first(db, { merchant: merchantId, order: orderId });
}

/** Ids of `created` invoices whose expires_at is before `before`, oldest first (worker use). */
export async function overdueCreated(db: Executor, before: string, limit: number): Promise<InvoiceRow[]> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('status', '=', 'created')
    .where('expires_at', '<', before)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** Moves an invoice from one status to another; false when it was no longer in `from`. */
export async function transitionInvoice(db: Executor, id: string, from: InvoiceStatus, to: InvoiceStatus, now: string): Promise<boolean> {
  const r = await db.updateTable('invoices').set({ status: to, updated_at: now }).where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return r.numUpdatedRows > 0n;
}
