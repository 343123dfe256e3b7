/**
 * Refund creation, reads, cancel and expiry (docs/refunds.md). Order of checks on create (after
 * the schema): invoice of this merchant (404 invoice_not_found), asset payable (422
 * asset_not_payable), amount well-formed (400 at body.amount), exception (400 at
 * body.exception_id; 409 invalid_state when another live refund cites it), payouts of the asset
 * on and the merchant enabled (422 asset_payouts_disabled, 403 merchant_disabled), the invoice's credit in that asset minus its live refunds (422
 * refund_exceeds_received), then amount + fee reserved (422 insufficient_balance).
 *
 * Everything from the reads of the invoice's refunds to the reservation and the event runs in one
 * write transaction (SQLite's single writer, PostgreSQL's SERIALIZABLE), so two refunds racing for
 * the last unit of a credit or of a balance cannot both pass.
 */
import { randomUUID } from 'node:crypto';
import type { AssetCatalog } from '../assets/catalog.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import type { RefundStatus } from '../db/tables/refunds.js';
import { AppError, validationFailed } from '../errors.js';
import { payoutFeeAt, payoutFeeFor } from '../fees/payout.js';
import { payUrl } from '../config.js';
import { decodeCursor, DEFAULT_PAGE_LIMIT, toPage } from '../http/pagination.js';
import type { Services } from '../services.js';
import { findException } from '../exceptions/store.js';
import { findInvoice, type InvoiceRow } from '../invoices/store.js';
import { post } from '../ledger/service.js';
import { findMerchant } from '../merchants/store.js';
import { merchantEnabled } from '../merchants/switches.js';
import { AmountError, parseAmount } from '../money.js';
import { assertPayoutAsset, assertPayoutsSwitchedOn } from '../payouts/assets.js';
import { closeUnclaimed, refundEvent, reserveRef } from './follow.js';
import type { CreateRefundBody, RefundView } from './schema.js';
import {
  findRefund,
  foreignCredited,
  insertRefund,
  listRefunds,
  liveRefunded,
  liveRefundOfException,
  overdueRefunds,
  type RefundRow,
} from './store.js';
import { refundView } from './view.js';

/** How long the customer has to give an address. */
export const CLAIM_DAYS = 30;

export interface RefundDeps {
  db: Db;
  clock: Clock;
  catalog: AssetCatalog;
  /** The payment page's public base (PAY_PUBLIC_URL or its listener's address). */
  payUrl: () => string;
}

function amountOf(text: string, decimals: number, maxUnits?: bigint): bigint {
  try {
    return parseAmount(text, decimals, maxUnits);
  } catch (e) {
    throw validationFailed('body.amount', (e as AmountError).message);
  }
}

/** What the invoice credited in `asset`: its own credit, or its foreign deposits' credits after their fee. */
async function creditedIn(db: Executor, inv: InvoiceRow, asset: string): Promise<bigint> {
  return asset === inv.asset ? BigInt(inv.amount_credited) : foreignCredited(db, inv.merchant_id, inv.address, asset);
}

/**
 * The cited exception must be open and about this invoice, and no other live refund may cite it.
 * The look-up runs in the create's write transaction, so two refunds racing for one exception
 * cannot both pass (SQLite's single writer; PostgreSQL's SERIALIZABLE retries the loser, which then
 * sees the winner).
 */
async function assertException(trx: Tx, inv: InvoiceRow, exceptionId: string | undefined): Promise<void> {
  if (exceptionId === undefined) return;
  const exc = await findException(trx, exceptionId.toLowerCase());
  if (!exc || exc.invoice_id !== inv.id || exc.resolved_at !== null)
    throw validationFailed('body.exception_id', 'is not an open exception of this invoice');
  const other = await liveRefundOfException(trx, exc.id);
  if (other)
    throw new AppError('invalid_state', `Exception ${exc.id} already has a live refund, ${other.id} (${other.status})`);
}

export async function createRefund(
  deps: RefundDeps,
  merchantId: string,
  invoiceId: string,
  body: CreateRefundBody,
  actor: string,
): Promise<RefundView> {
  return writeTx(deps.db, async (trx) => {
    const inv = await findInvoice(trx, merchantId, invoiceId);
    if (!inv) throw new AppError('invoice_not_found', 'Invoice not found');
    const code = body.asset ?? inv.asset;
    const asset = assertPayoutAsset(deps.catalog, code);
    const decimals = code === inv.asset ? inv.decimals : asset.decimals;
    const amount = amountOf(body.amount, decimals, asset.maxUnits);
    await assertException(trx, inv, body.exception_id);
    await assertPayoutsSwitchedOn(trx, asset);
    const merchant = await findMerchant(trx, merchantId);
    if (!merchant || !merchantEnabled(merchant))
      throw new AppError('merchant_disabled', 'The merchant is disabled: it makes no refunds');
    const left = (await creditedIn(trx, inv, code)) - (await liveRefunded(trx, inv.id, code));
    if (amount > left)
      throw new AppError(
        'refund_exceeds_received',
        `The invoice credited ${left < 0n ? 0n : left} base units of ${code} not yet refunded; ${amount} asked`,
      );
    const now = deps.clock.now();
    const feeRate = await payoutFeeAt(trx, code, now.toISOString());
    const fee = payoutFeeFor(amount, feeRate);
    const id = randomUUID();
    const row: RefundRow = {
      id,
      merchant_id: merchantId,
      invoice_id: inv.id,
      asset: code,
      decimals,
      amount: amount.toString(),
      fee_amount: fee.toString(),
      fee_schedule_id: feeRate.scheduleId,
      reason: body.reason ?? null,
      exception_id: body.exception_id?.toLowerCase() ?? null,
      status: 'awaiting_address',
      claim_url: `${deps.payUrl()}/pay/refund/${id}`,
      address: null,
      payout_id: null,
      created_by: actor,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CLAIM_DAYS * 86_400_000).toISOString(),
      updated_at: now.toISOString(),
    };
    await insertRefund(trx, row);
    // Throws insufficient_balance (rolling the insert back) when amount + fee > available.
    await post(trx, deps.clock, {
      merchantId,
      asset: code,
      kind: 'reserve',
      amount: amount + fee,
      sourceRef: reserveRef(id),
      memo: `refund ${id}`,
      actor,
    });
    await refundEvent(trx, deps.clock, row);
    return refundView(row);
  });
}

const notFound = () => new AppError('refund_not_found', 'Refund not found');

/** One refund; `merchantId` null for the operator. Another merchant's refund is as absent as a missing one. */
export async function getRefund(db: Executor, id: string, merchantId: string | null): Promise<RefundView> {
  const row = await findRefund(db, id.toLowerCase(), merchantId);
  if (!row) throw notFound();
  return refundView(row);
}

export async function cancelRefund(
  deps: Pick<RefundDeps, 'db' | 'clock'>,
  id: string,
  merchantId: string | null,
  actor: string,
): Promise<RefundView> {
  return writeTx(deps.db, async (trx) => {
    const row = await findRefund(trx, id.toLowerCase(), merchantId);
    if (!row) throw notFound();
    return refundView(await closeUnclaimed(trx, deps.clock, row, 'canceled', actor));
  });
}

export interface RefundQuery {
  merchantId?: string;
  invoiceId?: string;
  status?: RefundStatus;
}

/** A page of refunds, newest first. */
export async function refundPage(
  db: Executor,
  filter: RefundQuery,
  q: { limit?: number; cursor?: string },
): Promise<{ data: RefundView[]; next_cursor: string | null }> {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const rows = await listRefunds(db, { ...filter, limit: limit + 1, after: decodeCursor(q.cursor) });
  return toPage(rows.map(refundView), limit, (r) => ({ at: r.created_at, id: r.refund_id }));
}

/** The refund dependencies from the services: claim links on the page's public address. */
export function refundDeps(s: Services): RefundDeps {
  return { db: s.db, clock: s.clock, catalog: s.catalog, payUrl: () => s.payUrl?.() ?? payUrl(s.config) };
}

/** The expiry job: refunds still without an address at expires_at end, their reservation released. */
export async function expireRefunds(db: Db, clock: Clock, batch = 100): Promise<number> {
  const due = await overdueRefunds(db, clock.now().toISOString(), batch);
  let n = 0;
  for (const r of due) {
    await writeTx(db, async (trx) => {
      const cur = await findRefund(trx, r.id, r.merchant_id);
      if (cur?.status !== 'awaiting_address') return;
      await closeUnclaimed(trx, clock, cur, 'expired', 'system');
      n += 1;
    });
  }
  return n;
}
