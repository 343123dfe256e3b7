/**
 * An owner's view of a merchant's activity: invoices and payouts exactly as /v1 shows them (its
 * view functions, and for one record its very service function), deposits, and the webhook log.
 * The caller has checked the merchant belongs to the session's account.
 */
import type { Db } from '../db/database.js';
import type { InvoiceStatus, PayoutStatus } from '../db/schema.js';
import type { DeliveryStatus } from '../db/tables/webhooks.js';
import { liveDepositViews, standaloneDepositView } from '../deposits/view.js';
import { AppError, validationFailed } from '../errors.js';
import { decodeCursor, DEFAULT_PAGE_LIMIT, toPage } from '../http/pagination.js';
import { getInvoice } from '../invoices/service.js';
import { invoiceView } from '../invoices/view.js';
import { compareKeys } from '../db/keyset.js';
import { awaitingView, pageAwaiting, pageTermsOf, withPageTerms } from '../pay/listing.js';
import { findMerchantPageInvoice } from '../pay/store.js';
import { liveDepositsOfInvoices, type DepositRow } from '../deposits/store.js';
import { payoutView } from '../payouts/view.js';
import { keyView } from '../keys/service.js';
import type { ApiKeyRow } from '../keys/store.js';
import { attemptsOf, type DeliveryListRow } from '../webhooks/store.js';
import { attemptView, deliveryView } from '../webhooks/view.js';
import {
  findDeliveryOf,
  findKeyOf,
  pageDeliveries,
  pageDeposits,
  pageInvoices,
  pageKeys,
  pagePayouts,
  type Period,
} from './store.js';

export interface PageParams {
  limit?: number;
  cursor?: string;
}

/** `from`/`to` as stored (toISOString), so text comparison is time order; `to` must be after `from`. */
function period(q: { from?: string; to?: string }): Period {
  const at = (v: string | undefined) => (v === undefined ? undefined : new Date(v).toISOString());
  const p = { from: at(q.from), to: at(q.to) };
  if (p.from && p.to && p.from >= p.to) throw validationFailed('query.to', 'must be after from');
  return p;
}

const byCreated = (r: { created_at: string; id: string }) => ({ at: r.created_at, id: r.id });

export async function listInvoices(
  db: Db,
  now: Date,
  merchantId: string,
  q: PageParams & { status?: InvoiceStatus; from?: string; to?: string },
) {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const f = { ...period(q), status: q.status };
  const key = decodeCursor(q.cursor);
  // Two keyset walks in the same order, merged: invoices, and page invoices awaiting the choice.
  const rows = [
    ...(await pageInvoices(db, merchantId, f, key, limit)).map((row) => ({ row, awaiting: null })),
    ...(await pageAwaiting(db, merchantId, f, key, limit, now)).map((awaiting) => ({ row: null, awaiting })),
  ].sort((a, b) => compareKeys(byCreated(b.row ?? b.awaiting!), byCreated(a.row ?? a.awaiting!)));
  const page = toPage(rows, limit, (r) => byCreated(r.row ?? r.awaiting!));
  const invoices = page.data.flatMap((r) => (r.row ? [r.row] : []));
  // As GET /v1/invoices/{id}: an invoice still `created` shows no deposits.
  const deposits = await liveDepositsOfInvoices(
    db,
    invoices.filter((r) => r.status !== 'created').map((r) => r.id),
  );
  const byInvoice = new Map<string, DepositRow[]>();
  for (const d of deposits)
    byInvoice.set(d.invoice_id as string, [...(byInvoice.get(d.invoice_id as string) ?? []), d]);
  const terms = await pageTermsOf(
    db,
    invoices.filter((r) => r.checkout_url !== null).map((r) => r.id),
  );
  return {
    data: page.data.map(({ row, awaiting }) =>
      row
        ? withPageTerms(
            invoiceView(row, row.status === 'created' ? [] : liveDepositViews(byInvoice.get(row.id) ?? [])),
            terms.get(row.id),
          )
        : awaitingView(awaiting!, now),
    ),
    next_cursor: page.next_cursor,
  };
}

/** One invoice as the cabinet shows it: a /v1 invoice, or a page invoice chosen or awaiting the choice. */
export async function showInvoice(db: Db, now: Date, merchantId: string, id: string) {
  try {
    const view = await getInvoice({ db }, merchantId, id);
    return withPageTerms(view, view.checkout_url === null ? undefined : (await pageTermsOf(db, [id])).get(id));
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'invoice_not_found') throw e;
    const page = await findMerchantPageInvoice(db, merchantId, id);
    if (!page || page.asset !== null) throw e;
    return awaitingView(page, now);
  }
}

export async function listPayouts(
  db: Db,
  merchantId: string,
  q: PageParams & { status?: PayoutStatus; from?: string; to?: string },
) {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const page = toPage(
    await pagePayouts(db, merchantId, { ...period(q), status: q.status }, decodeCursor(q.cursor), limit),
    limit,
    byCreated,
  );
  return { data: page.data.map(payoutView), next_cursor: page.next_cursor };
}

export async function listDeposits(db: Db, merchantId: string, q: PageParams & { unattached?: 'true' | 'false' }) {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const rows = await pageDeposits(
    db,
    merchantId,
    { unattached: q.unattached === 'true' },
    decodeCursor(q.cursor),
    limit,
  );
  const page = toPage(rows, limit, byCreated);
  return {
    data: page.data.map((r) => ({ ...standaloneDepositView(r), invoice_id: r.invoice_id })),
    next_cursor: page.next_cursor,
  };
}

/** A delivery as its owner sees it: the operator's view of it (webhooks/view.ts) without the merchant's fields. */
function ownerDeliveryView(d: DeliveryListRow) {
  const { merchant_id: _merchant, merchant_seq: _seq, ...view } = deliveryView(d, d.type);
  return view;
}

export async function listDeliveries(db: Db, merchantId: string, q: PageParams & { status?: DeliveryStatus }) {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const page = toPage(await pageDeliveries(db, merchantId, q, decodeCursor(q.cursor), limit), limit, byCreated);
  return { data: page.data.map(ownerDeliveryView), next_cursor: page.next_cursor };
}

/** A delivery with its attempts; another merchant's is delivery_not_found, as an absent one. */
export async function showDelivery(db: Db, merchantId: string, id: string) {
  const d = await findDeliveryOf(db, merchantId, id);
  if (!d) throw new AppError('delivery_not_found', `Webhook delivery ${id} does not exist`);
  const attempts = await attemptsOf(db, d.id);
  return {
    ...ownerDeliveryView(d),
    attempts_log: attempts.map(attemptView),
  };
}

/** A key as its owner sees it: the operator's view of it (keys/service.ts) without the merchant id. */
function ownerKeyView(k: ApiKeyRow, now: Date) {
  const v = keyView(k, now);
  return {
    key_id: v.key_id,
    label: v.label,
    status: v.status,
    created_at: v.created_at,
    expires_at: v.expires_at,
    revoked_at: v.revoked_at,
    last_used_at: v.last_used_at,
  };
}

export async function listKeys(db: Db, now: Date, merchantId: string, q: PageParams) {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const rows = await pageKeys(db, merchantId, decodeCursor(q.cursor), limit);
  const page = toPage(rows, limit, (k) => ({ at: k.created_at, id: k.key_id }));
  return { data: page.data.map((k) => ownerKeyView(k, now)), next_cursor: page.next_cursor };
}

/** A key of this merchant; another merchant's is api_key_not_found, as an absent one. Never a secret. */
export async function showKey(db: Db, now: Date, merchantId: string, keyId: string) {
  const k = await findKeyOf(db, merchantId, keyId);
  if (!k) throw new AppError('api_key_not_found', `API key ${keyId} does not exist`);
  return ownerKeyView(k, now);
}
