/** SQL for invoices. Every read a merchant can trigger is scoped by merchant_id. */
import type { Executor } from '../db/database.js';
import { prepare } from '../db/prepared.js';
import type { InvoicesTable, InvoiceStatus } from '../db/schema.js';

export type InvoiceRow = InvoicesTable;

const COLUMNS = [
  'id', 'merchant_id', 'order_id', 'status', 'asset', 'network', 'decimals', 'address', 'external_user_id', 'amount_requested', 'amount_expected',
  'amount_received', 'amount_credited', 'service_fee_payer', 'service_fee_percent', 'service_fee_fixed', 'service_fee_amount', 'return_url',
  'cancel_url', 'expires_at', 'created_at', 'updated_at',
] as const satisfies readonly (keyof InvoiceRow)[];
const insert = prepare(COLUMNS, (db, p) => db.insertInto('invoices').values(Object.fromEntries(COLUMNS.map((c) => [c, p(c)])) as unknown as InvoiceRow));

export async function insertInvoice(db: Executor, row: InvoiceRow): Promise<void> {
  await insert.run(db, row);
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
