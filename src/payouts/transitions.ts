/**
 * The payout state machine and the money that moves with it. Every status change goes through
 * `transitionPayout`, inside the caller's write transaction: it moves the row only from the state
 * it was read in (a concurrent change makes it fail instead of applying twice), writes the ledger
 * entries of the new state, and the `payout.<status>` event with the Payout object.
 *
 *   pending_review → approved | rejected          operator (`payout approve|reject`)
 *   approved → queued                              worker picks it
 *   queued → signing | failed
 *   signing → broadcast | failed
 *   broadcast → confirmed | failed | signing       signing anew once the old tx provably expired
 *
 * Money: rejected/failed release the reservation (fee charged stays "0"); confirmed releases it
 * and debits amount + fee (fee charged = the fee). The ledger's UNIQUE (payout_id, kind) makes a
 * second release or debit of the same payout impossible even if this code were called twice.
 */
import type { Clock } from '../clock.js';
import type { Executor } from '../db/database.js';
import type { PayoutStatus } from '../db/schema.js';
import { AppError } from '../errors.js';
import { heldReservation, post } from '../ledger/service.js';
import { recordEvent } from '../webhooks/outbox.js';
import type { PayoutView } from './schema.js';
import { updatePayoutStatus, type PayoutRow } from './store.js';
import { payoutView } from './view.js';

export const NEXT: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  pending_review: ['approved', 'rejected'],
  approved: ['queued'],
  queued: ['signing', 'failed'],
  signing: ['broadcast', 'failed'],
  broadcast: ['confirmed', 'failed', 'signing'],
  confirmed: [],
  rejected: [],
  failed: [],
};

export interface TransitionInput {
  to: PayoutStatus;
  actor: string;
  /** Extra columns that change with the status (reviewed_by, reject_reason, tx_hash…). */
  patch?: Partial<Pick<PayoutRow, 'reviewed_by' | 'reviewed_at' | 'reject_reason' | 'tx_hash'>>;
}

export async function transitionPayout(trx: Executor, clock: Clock, row: PayoutRow, t: TransitionInput): Promise<{ row: PayoutRow; view: PayoutView }> {
  if (!NEXT[row.status].includes(t.to)) {
    throw new AppError('invalid_state', `Payout ${row.id} is ${row.status}; it cannot become ${t.to}`);
  }
  const now = clock.now().toISOString();
  const next: PayoutRow = { ...row, ...t.patch, status: t.to, updated_at: now };

  if (t.to === 'rejected' || t.to === 'failed' || t.to === 'confirmed') {
    const held = await heldReservation(trx, row.merchant_id, row.id);
    if (held > 0n) await post(trx, clock, { merchantId: row.merchant_id, asset: row.asset, kind: 'release', amount: held, payoutId: row.id, actor: t.actor });
    if (t.to === 'confirmed') {
      const charged = BigInt(row.amount) + BigInt(row.fee_amount);
      await post(trx, clock, { merchantId: row.merchant_id, asset: row.asset, kind: 'debit', amount: charged, payoutId: row.id, actor: t.actor });
      next.fee_charged = row.fee_amount;
    } else {
      next.fee_charged = '0';
    }
  }

  const moved = await updatePayoutStatus(trx, row.id, row.status, {
    status: next.status,
    updated_at: now,
    fee_charged: next.fee_charged,
    ...t.patch,
  });
  if (!moved) throw new AppError('invalid_state', `Payout ${row.id} changed state meanwhile; read it again`);
  const view = payoutView(next);
  await recordEvent(trx, clock, { merchantId: row.merchant_id, type: `payout.${t.to}`, subjectId: row.id, data: view });
  return { row: next, view };
}
