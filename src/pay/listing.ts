/**
 * Page invoices in the cabinet's invoice list and detail: those
 * still awaiting the customer's choice (no invoices row yet) shown with asset, address, amounts and
 * fees null, and every invoice made from a page invoice shown with its price and description.
 */
import { sql, type SqlBool } from 'kysely';
import type { Executor } from '../db/database.js';
import { afterKey } from '../db/keyset.js';
import { startsWith } from '../db/portable.js';
import type { InvoiceStatus } from '../db/schema.js';
import type { PageKey } from '../http/pagination.js';
import type { InvoiceView } from '../invoices/schema.js';
import { pageStatus } from './service.js';
import type { PageInvoiceRow } from './store.js';

/** An invoice as the cabinet shows it: the /v1 fields (null where a page invoice has none yet) and the page's. */
export type CabinetInvoiceView = Omit<
  InvoiceView,
  'asset' | 'address' | 'amount_requested' | 'amount_expected' | 'amount_received' | 'amount_credited' | 'fees'
> & {
  asset: string | null;
  address: string | null;
  amount_requested: string | null;
  amount_expected: string | null;
  amount_received: string | null;
  amount_credited: string | null;
  fees: InvoiceView['fees'] | null;
  deposits: (InvoiceView['deposits'][number] & { from_address: string | null })[];
  status_history: { status: InvoiceStatus; at: string; derived: boolean }[];
  price: string | null;
  price_currency: 'USD' | null;
  description: string | null;
  awaiting_choice: boolean;
};

/** An invoice of /v1 or a chosen page invoice, with the page's terms when it has them. */
export function withPageTerms<V extends InvoiceView>(
  view: V,
  page: Pick<PageInvoiceRow, 'price' | 'description'> | undefined,
) {
  return {
    ...view,
    price: page?.price ?? null,
    price_currency: page ? ('USD' as const) : null,
    description: page?.description ?? null,
    awaiting_choice: false,
  };
}

/** A page invoice whose customer has not chosen yet. */
export function awaitingView(row: PageInvoiceRow, now: Date): CabinetInvoiceView {
  return {
    invoice_id: row.id,
    order_id: row.order_id,
    status: pageStatus(row, undefined, now),
    asset: null,
    network: 'tron',
    address: null,
    amount_requested: null,
    amount_expected: null,
    amount_received: null,
    amount_credited: null,
    fees: null,
    external_user_id: row.external_user_id,
    return_url: row.return_url,
    cancel_url: row.cancel_url,
    checkout_url: row.checkout_url,
    expires_at: row.expires_at,
    created_at: row.created_at,
    deposits: [],
    // Nothing happened to it yet but its creation (and its term running out, read off the clock).
    status_history: [
      { status: 'created', at: row.created_at, derived: true },
      ...(pageStatus(row, undefined, now) === 'expired'
        ? [{ status: 'expired' as const, at: row.expires_at, derived: true }]
        : []),
    ],
    price: row.price,
    price_currency: 'USD',
    description: row.description,
    awaiting_choice: true,
  };
}

/**
 * A page of a merchant's page invoices awaiting the choice, in the invoices' keyset order. Their
 * status is created until the term and expired after it: a status filter is held against `now`.
 */
export async function pageAwaiting(
  db: Executor,
  merchantId: string,
  f: { from?: string; to?: string; status?: InvoiceStatus; asset?: string; q?: string },
  key: PageKey | null,
  limit: number,
  now: Date,
): Promise<PageInvoiceRow[]> {
  if (f.status && f.status !== 'created' && f.status !== 'expired') return [];
  // No asset until the choice; of the search's keys it has only its order id and its id.
  if (f.asset !== undefined) return [];
  let q = db.selectFrom('page_invoices').selectAll().where('merchant_id', '=', merchantId).where('asset', 'is', null);
  if (key) q = q.where((eb) => afterKey(eb, 'created_at', 'id', key, 'desc'));
  if (f.q !== undefined) {
    const text = f.q;
    q = q.where((eb) => eb.or([startsWith(db, sql.ref('order_id'), text), eb('id', '=', text)]));
  }
  if (f.from) q = q.where('created_at', '>=', f.from);
  if (f.to) q = q.where('created_at', '<', f.to);
  const at = now.toISOString();
  if (f.status === 'created') q = q.where('expires_at', '>', at);
  if (f.status === 'expired') q = q.where(sql<SqlBool>`expires_at <= ${at}`);
  return q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/** The page terms (price, description) of these invoice ids, for those made from page invoices. */
export async function pageTermsOf(db: Executor, ids: string[]) {
  if (ids.length === 0) return new Map<string, Pick<PageInvoiceRow, 'price' | 'description'>>();
  const rows = await db
    .selectFrom('page_invoices')
    .select(['id', 'price', 'description'])
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}
