/** SQL for invoices. Every read a merchant can trigger is scoped by merchant_id. */
import type { Executor } from '../db/database.js';
import { insertionOrder } from '../db/insertion-order.js';
import { byValue } from '../db/planner.js';
import { prepare } from '../db/prepared.js';
import type { InvoicesTable, InvoiceStatus } from '../db/schema.js';

export type InvoiceRow = InvoicesTable;

const COLUMNS = [
  'id', 'merchant_id', 'order_id', 'status', 'asset', 'network', 'decimals', 'address', 'address_index', 'external_user_id', 'amount_requested', 'amount_expected',
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

/**
 * Invoices in `created` or `seen` whose expires_at is before `before`, soonest first: those the
 * watcher settles after each block, whose status may change with the horizon. One walk of
 * invoices_expiry per status, each stopping at `limit`, then merged. A single `status in (…)
 * order by expires_at limit` plans a temporary B-tree over every overdue open invoice; SQLite
 * does stop each IN branch early (0.13 ms with 100,000 overdue, 81 ms without the LIMIT), but
 * that is not in the plan: the two ordered walks make the bound one query-plans.test.ts checks.
 */
export async function overdueOpen(db: Executor, before: string, limit: number): Promise<Pick<InvoiceRow, 'id' | 'expires_at'>[]> {
  const of = (status: InvoiceStatus) =>
    db.selectFrom('invoices').select(['id', 'expires_at']).where('status', '=', status).where('expires_at', '<', before).orderBy('expires_at').limit(limit).execute();
  const [created, seen] = [await of('created'), await of('seen')];
  return [...created, ...seen].sort((a, b) => (a.expires_at < b.expires_at ? -1 : a.expires_at > b.expires_at ? 1 : 0)).slice(0, limit);
}

/**
 * The invoice of a per-invoice deposit address (at most one), for the watcher's attribution: found
 * through the address's derivation index (invoices_address_index), the address text compared too.
 */
export async function invoiceOfAddress(db: Executor, address: string, index: number): Promise<Pick<InvoiceRow, 'id' | 'asset' | 'expires_at'> | undefined> {
  return db
    .selectFrom('invoices')
    .select(['id', 'asset', 'expires_at'])
    .where('address_index', '=', index)
    .where('address', '=', address)
    .executeTakeFirst();
}

/**
 * The oldest open invoice in `asset` of a permanent address not expired at `at` (by insertion
 * order among equal created_at, DESIGN §5): what a deposit to it pays.
 */
export async function oldestOpenOfAddress(db: Executor, address: string, index: number, asset: string, at: string): Promise<Pick<InvoiceRow, 'id' | 'expires_at'> | undefined> {
  return (
    db
      .selectFrom('invoices')
      .select(['id', 'expires_at'])
      .where('address_index', '=', index)
      .where('address', '=', address)
      .where('asset', '=', asset)
      .where('status', 'in', ['created', 'seen'])
      // Compared by value: without statistics SQLite otherwise reads invoices_expiry,
      // every open invoice of every merchant, rather than this address's in invoices_address_index.
      .where(byValue<string>('expires_at'), '>=', at)
      .orderBy('created_at')
      .orderBy(insertionOrder)
      .executeTakeFirst()
  );
}

/** Moves an invoice from one status to another; false when it was no longer in `from`. */
export async function transitionInvoice(db: Executor, id: string, from: InvoiceStatus, to: InvoiceStatus, now: string): Promise<boolean> {
  const r = await db.updateTable('invoices').set({ status: to, updated_at: now }).where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return r.numUpdatedRows > 0n;
}
