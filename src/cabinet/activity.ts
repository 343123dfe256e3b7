/**
 * An owner's view of a merchant's activity: invoices and payouts exactly as /v1 shows them (its
 * view functions, and for one record its very service function), deposits, and the webhook log.
 * The caller has checked the merchant belongs to the session's account.
 */
import type { Db } from '../db/database.js';
import type { InvoiceStatus, PayoutStatus } from '../db/schema.js';
import type { DeliveryStatus } from '../db/tables/webhooks.js';
import { standaloneDepositView } from '../deposits/view.js';
import { AppError } from '../errors.js';
import { exceptionsOfInvoice } from '../exceptions/service.js';
import { decodeCursor, DEFAULT_PAGE_LIMIT, toPage } from '../http/pagination.js';
import { findPayout, type PayoutRow } from '../payouts/store.js';
import { compareKeys } from '../db/keyset.js';
import { awaitingView, pageAwaiting } from '../pay/listing.js';
import { findMerchantPageInvoice } from '../pay/store.js';
import { ownerInvoice, ownerInvoiceViews } from './invoice-view.js';
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
} from './store.js';
import { cabinetPeriod as period } from './period.js';
import { ownerDeliveryError } from './delivery-words.js';

export interface PageParams {
  limit?: number;
  cursor?: string;
}

interface ListQuery {
  from?: string;
  to?: string;
  asset?: string;
  q?: string;
}

const byCreated = (r: { created_at: string; id: string }) => ({ at: r.created_at, id: r.id });

export async function listInvoices(
  db: Db,
  now: Date,
  merchantId: string,
  q: PageParams & ListQuery & { status?: InvoiceStatus },
) {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const f = { ...period(q), status: q.status, asset: q.asset, q: q.q };
  const key = decodeCursor(q.cursor);
  // Two keyset walks in the same order, merged: invoices, and page invoices awaiting the choice.
  const rows = [
    ...(await pageInvoices(db, merchantId, f, key, limit)).map((row) => ({ row, awaiting: null })),
    ...(await pageAwaiting(db, merchantId, f, key, limit, now)).map((awaiting) => ({ row: null, awaiting })),
  ].sort((a, b) => compareKeys(byCreated(b.row ?? b.awaiting!), byCreated(a.row ?? a.awaiting!)));
  const page = toPage(rows, limit, (r) => byCreated(r.row ?? r.awaiting!));
  const views = new Map(
    (
      await ownerInvoiceViews(
        db,
        page.data.flatMap((r) => (r.row ? [r.row] : [])),
      )
    ).map((v) => [v.invoice_id, v]),
  );
  return {
    data: page.data.map(({ row, awaiting }) => (row ? views.get(row.id)! : awaitingView(awaiting!, now))),
    next_cursor: page.next_cursor,
  };
}

/** One invoice as the cabinet shows it: a /v1 invoice, or a page invoice chosen or awaiting the choice. */
/** What needs attention on one invoice: its exceptions and the deposits of another asset to its address. */
async function invoiceAttention(db: Db, inv: { invoice_id: string; address: string | null; asset: string | null }) {
  const foreign =
    inv.address === null || inv.asset === null
      ? []
      : await db
          .selectFrom('deposits')
          .selectAll()
          .where('address', '=', inv.address)
          .where('invoice_id', 'is', null)
          .where('asset', '!=', inv.asset)
          .where('status', '!=', 'orphaned')
          .orderBy('created_at')
          .execute();
  return {
    exceptions: await exceptionsOfInvoice(db, inv.invoice_id),
    foreign_deposits: foreign.map((r) => ({ ...standaloneDepositView(r), invoice_id: null })),
  };
}

export async function showInvoice(db: Db, now: Date, merchantId: string, id: string) {
  try {
    const view = await ownerInvoice(db, merchantId, id);
    return { ...view, ...(await invoiceAttention(db, view)) };
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'invoice_not_found') throw e;
    const page = await findMerchantPageInvoice(db, merchantId, id);
    if (!page || page.asset !== null) throw e;
    return awaitingView(page, now);
  }
}

/** A payout as its owner sees it: the /v1 object and why it stopped, when it did. */
function ownerPayoutView(row: PayoutRow) {
  return {
    ...payoutView(row),
    reject_reason: row.reject_reason,
    fail_reason: row.fail_reason,
    hold_reason: row.hold_reason,
  };
}

/** One payout of the merchant; another merchant's is payout_not_found, as an absent one. */
export async function showPayout(db: Db, merchantId: string, id: string) {
  const row = await findPayout(db, merchantId, id);
  if (!row) throw new AppError('payout_not_found', 'Payout not found');
  return ownerPayoutView(row);
}

export async function listPayouts(db: Db, merchantId: string, q: PageParams & ListQuery & { status?: PayoutStatus }) {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const page = toPage(
    await pagePayouts(
      db,
      merchantId,
      { ...period(q), status: q.status, asset: q.asset, q: q.q },
      decodeCursor(q.cursor),
      limit,
    ),
    limit,
    byCreated,
  );
  return { data: page.data.map(ownerPayoutView), next_cursor: page.next_cursor };
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
  return {
    ...view,
    last_error: ownerDeliveryError(view.last_error),
    retrying: d.status === 'pending' && d.attempts > 0,
    subject: { type: d.type.split('.')[0] as 'invoice' | 'payout' | 'deposit', id: d.subject_id },
  };
}

export async function listDeliveries(
  db: Db,
  merchantId: string,
  q: PageParams & { status?: DeliveryStatus | 'retrying' },
) {
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
    attempts_log: attempts.map((a) => {
      const v = attemptView(a);
      return { ...v, error: ownerDeliveryError(v.error) };
    }),
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
