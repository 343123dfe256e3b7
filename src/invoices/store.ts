/** SQL for invoices. Every read a merchant can trigger is scoped by merchant_id. */
import type { Executor } from '../db/database.js';
import type { InvoicesTable, InvoiceStatus } from '../db/schema.js';

export type InvoiceRow = InvoicesTable;

export async function insertInvoice(db: Executor, row: InvoiceRow): Promise<void> {
  await db.insertInto('invoices').values(row).execute();
}

export async function findInvoice(db: Executor, merchantId: string, id: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function findInvoiceByOrder(db: Executor, merchantId: string, orderId: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId).where('order_id', '=', orderId).executeTakeFirst();
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
