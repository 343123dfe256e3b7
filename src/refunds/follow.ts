/**
 * A refund's status changes and their `refund.<status>` events, in the caller's transaction. Also
 * the refund's side of its payout: `transitionPayout` calls `followPayout` for every payout whose
 * reference is `refund-{id}`, so the refund moves in the same transaction as its payout
 * (confirmed → sent, rejected or failed → failed; the payout's own transition moves the money). A
 * sent refund resolves the exception it cites in that same transaction.
 */
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import type { PayoutsTable } from '../db/schema.js';
import type { RefundStatus } from '../db/tables/refunds.js';
import { AppError } from '../errors.js';
import { findException, resolveException } from '../exceptions/store.js';
import { post } from '../ledger/service.js';
import { formatUnits } from '../money.js';
import { recordEvent } from '../webhooks/outbox.js';
import { moveRefund, refundOfPayout, type RefundRow } from './store.js';
import { refundView } from './view.js';

export const REFUND_REFERENCE = 'refund-';

/** The ledger source of a refund's reservation, and of its release. */
export const reserveRef = (id: string) => `refund:${id}`;
export const releaseRef = (id: string) => `refund-release:${id}`;

/** `refund.created` for a new refund (awaiting_address), else `refund.<status>`. */
export async function refundEvent(trx: Tx, clock: Clock, row: RefundRow): Promise<void> {
  const name = row.status === 'awaiting_address' ? 'created' : row.status;
  await recordEvent(trx, clock, {
    merchantId: row.merchant_id,
    type: `refund.${name}`,
    subjectId: row.id,
    data: refundView(row),
    key: `refund:${row.id}:${name}`,
  });
}

/** Compare-and-set from the status `row` was read in, then the event; invalid_state when it moved meanwhile. */
export async function moveRefundTo(
  trx: Tx,
  clock: Clock,
  row: RefundRow,
  to: RefundStatus,
  patch: Partial<RefundRow> = {},
): Promise<RefundRow> {
  const next: RefundRow = { ...row, ...patch, status: to, updated_at: clock.now().toISOString() };
  const { id: _id, ...columns } = next;
  if (!(await moveRefund(trx, row.id, row.status, columns)))
    throw new AppError('invalid_state', `Refund ${row.id} changed state meanwhile; read it again`);
  await refundEvent(trx, clock, next);
  return next;
}

/** Ends a refund still waiting for its address (cancel, expiry): its reservation is released. */
export async function closeUnclaimed(
  trx: Tx,
  clock: Clock,
  row: RefundRow,
  to: 'canceled' | 'expired',
  actor: string,
): Promise<RefundRow> {
  if (row.status !== 'awaiting_address')
    throw new AppError(
      'invalid_state',
      `Refund ${row.id} is ${row.status}; only one awaiting its address can be ${to}`,
    );
  const next = await moveRefundTo(trx, clock, row, to);
  await releaseReservation(trx, clock, row, actor);
  return next;
}

export async function releaseReservation(trx: Tx, clock: Clock, row: RefundRow, actor: string): Promise<void> {
  await post(trx, clock, {
    merchantId: row.merchant_id,
    asset: row.asset,
    kind: 'release',
    amount: BigInt(row.amount) + BigInt(row.fee_amount),
    sourceRef: releaseRef(row.id),
    memo: `refund ${row.id}`,
    actor,
  });
}

/** Called for every payout transition: the refund of a refund payout follows it. */
export async function followPayout(trx: Tx, clock: Clock, payout: PayoutsTable): Promise<void> {
  if (!payout.reference.startsWith(REFUND_REFERENCE)) return;
  // The refund row names its payout: a merchant's own payout with such a reference moves nothing.
  const to: RefundStatus | null =
    payout.status === 'confirmed'
      ? 'sent'
      : payout.status === 'rejected' || payout.status === 'failed'
        ? 'failed'
        : null;
  if (to === null) return;
  const refund = await refundOfPayout(trx, payout.id);
  if (!refund || refund.status !== 'requested') return;
  await moveRefundTo(trx, clock, refund, to);
  if (to === 'sent') await resolveCited(trx, clock, refund);
}

/** A sent refund resolves the exception it cites, unless a person resolved it meanwhile. */
async function resolveCited(trx: Tx, clock: Clock, refund: RefundRow): Promise<void> {
  if (refund.exception_id === null) return;
  const exc = await findException(trx, refund.exception_id);
  if (!exc || exc.resolved_at !== null) return;
  await resolveException(trx, clock, exc.id, {
    note: `Refunded: ${formatUnits(refund.amount, refund.decimals)} ${refund.asset} sent`,
    by: refund.created_by,
    refundId: refund.id,
  });
}
