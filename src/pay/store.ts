/** SQL for page invoices. A merchant's reads are scoped by merchant_id; the customer's by the unguessable id. */
import type { Executor, Tx } from '../db/database.js';
import type { PageInvoicesTable } from '../db/schema.js';

export type PageInvoiceRow = PageInvoicesTable;

export async function insertPageInvoice(db: Tx, row: PageInvoiceRow): Promise<void> {
  await db.insertInto('page_invoices').values(row).execute();
}

export async function findPageInvoiceByOrder(
  db: Executor,
  merchantId: string,
  orderId: string,
): Promise<PageInvoiceRow | undefined> {
  return db
    .selectFrom('page_invoices')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('order_id', '=', orderId)
    .executeTakeFirst();
}

/** The customer's lookup: the id is the only credential. */
export async function findPageInvoice(db: Executor, id: string): Promise<PageInvoiceRow | undefined> {
  return db.selectFrom('page_invoices').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findMerchantPageInvoice(
  db: Executor,
  merchantId: string,
  id: string,
): Promise<PageInvoiceRow | undefined> {
  return db
    .selectFrom('page_invoices')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
}

/** Records the choice; false when another request chose first. */
export async function recordChoice(db: Tx, id: string, asset: string, at: string): Promise<boolean> {
  const r = await db
    .updateTable('page_invoices')
    .set({ asset, chosen_at: at })
    .where('id', '=', id)
    .where('asset', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** The customer's address for the receipt, with the page's language; a later one replaces it. */
export async function saveReceiptEmail(db: Tx, invoiceId: string, email: string, language: string, at: string) {
  await db
    .insertInto('receipt_emails')
    .values({ invoice_id: invoiceId, email, language, created_at: at, updated_at: at })
    .onConflict((oc) => oc.column('invoice_id').doUpdateSet({ email, language, updated_at: at }))
    .execute();
}

/** The address (and language) a page invoice's customer left for the receipt, if any. */
export async function findReceiptEmail(db: Executor, invoiceId: string) {
  return db
    .selectFrom('receipt_emails')
    .select(['email', 'language'])
    .where('invoice_id', '=', invoiceId)
    .executeTakeFirst();
}
