/**
 * The cabinet's reads of one merchant's records, newest first, a keyset page at a time
 * (src/http/pagination.ts). Every query is scoped by merchant_id; the caller has checked that the
 * session's account sees that merchant.
 */
import type { Executor } from '../db/database.js';
import { afterKey } from '../db/keyset.js';
import type { InvoiceStatus, PayoutStatus } from '../db/schema.js';
import type { DeliveryStatus } from '../db/tables/webhooks.js';
import type { PageKey } from '../http/pagination.js';

export interface Period {
  /** ISO times as stored (toISOString), half-open [from, to). */
  from?: string;
  to?: string;
}

export async function pageInvoices(
  db: Executor,
  merchantId: string,
  f: Period & { status?: InvoiceStatus },
  key: PageKey | null,
  limit: number,
) {
  let q = db.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId);
  if (key) q = q.where((eb) => afterKey(eb, 'created_at', 'id', key, 'desc'));
  if (f.status) q = q.where('status', '=', f.status);
  if (f.from) q = q.where('created_at', '>=', f.from);
  if (f.to) q = q.where('created_at', '<', f.to);
  return q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/** Live deposits of these invoices, in chain order (one query for a page). */
export async function liveDepositsOfInvoices(db: Executor, invoiceIds: string[]) {
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

export async function pagePayouts(
  db: Executor,
  merchantId: string,
  f: Period & { status?: PayoutStatus },
  key: PageKey | null,
  limit: number,
) {
  let q = db.selectFrom('payouts').selectAll().where('merchant_id', '=', merchantId);
  if (key) q = q.where((eb) => afterKey(eb, 'created_at', 'id', key, 'desc'));
  if (f.status) q = q.where('status', '=', f.status);
  if (f.from) q = q.where('created_at', '>=', f.from);
  if (f.to) q = q.where('created_at', '<', f.to);
  return q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/** Live deposits of a merchant; `unattached`: only those paying no invoice. */
export async function pageDeposits(
  db: Executor,
  merchantId: string,
  f: { unattached: boolean },
  key: PageKey | null,
  limit: number,
) {
  let q = db.selectFrom('deposits').selectAll().where('merchant_id', '=', merchantId).where('status', '!=', 'orphaned');
  if (key) q = q.where((eb) => afterKey(eb, 'created_at', 'id', key, 'desc'));
  if (f.unattached) q = q.where('invoice_id', 'is', null);
  return q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

export async function pageDeliveries(
  db: Executor,
  merchantId: string,
  f: { status?: DeliveryStatus },
  key: PageKey | null,
  limit: number,
) {
  let q = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select('e.type')
    .where('d.merchant_id', '=', merchantId);
  if (key) q = q.where((eb) => afterKey(eb, 'd.created_at', 'd.id', key, 'desc'));
  if (f.status) q = q.where('d.status', '=', f.status);
  return q
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit + 1)
    .execute();
}

export async function findDeliveryOf(db: Executor, merchantId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select('e.type')
    .where('d.id', '=', id)
    .where('d.merchant_id', '=', merchantId)
    .executeTakeFirst();
}

export async function pageKeys(db: Executor, merchantId: string, key: PageKey | null, limit: number) {
  let q = db.selectFrom('api_keys').selectAll().where('merchant_id', '=', merchantId);
  if (key) q = q.where((eb) => afterKey(eb, 'created_at', 'key_id', key, 'desc'));
  return q
    .orderBy('created_at', 'desc')
    .orderBy('key_id', 'desc')
    .limit(limit + 1)
    .execute();
}

export async function findKeyOf(db: Executor, merchantId: string, keyId: string) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_id', '=', keyId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
}
