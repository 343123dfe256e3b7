/**
 * The payout state machine and the money that moves with it. Every status change goes through
 * `transitionPayout`, inside the caller's write transaction, in this order:
 *   1. the status compare-and-set: the row moves only from the state it was read in (a concurrent
 *      change, e.g. a cancel racing the worker, makes it fail before anything else is written);
 *   2. the ledger entries of the new state;
 *   3. the `payout.<status>` event with the Payout object, keyed per transition;
 *   4. a refund payout's refund follows it (src/refunds/follow.ts).
 *
 *   pending_review → approved | rejected           operator (`payout approve|reject|cancel`)
 *   approved → queued | rejected                   worker picks it (rejected: whitelist entry gone) | cancel
 *   queued → signing | rejected                    signed tx stored before any broadcast | cancel
 *   signing → broadcast | queued                   node took the tx | it provably can never land (re-sign)
 *   broadcast → confirmed | failed | queued        receipt in a solid block | provably never landed (re-sign)
 *   any open status → confirmed                    after a restore, found sent on chain (restore/chain-reading.ts)
 *
 * Money: rejected/failed release the reservation (fee charged stays "0"); confirmed releases it
 * and debits amount + fee (fee charged = the fee). The ledger's UNIQUE (payout_id, kind) makes a
 * second release or debit of the same payout impossible even if this code were called twice.
 * Statuses that can be entered again (queued, signing, broadcast after a re-sign) carry the sign
 * attempt in their event key, so each entry emits one event and a replay none.
 */
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import type { PayoutStatus } from '../db/schema.js';
import { AppError } from '../errors.js';
import { heldReservation, post } from '../ledger/service.js';
import { followPayout } from '../refunds/follow.js';
import { recordEvent } from '../webhooks/outbox.js';
import type { PayoutView } from './schema.js';
import { updatePayoutStatus, type PayoutRow } from './store.js';
import { payoutView } from './view.js';
import { syncPayoutHold } from '../exceptions/payouts.js';

export const NEXT: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  pending_review: ['approved', 'rejected'],
  approved: ['queued', 'rejected'],
  queued: ['signing', 'rejected'],
  signing: ['broadcast', 'queued'],
  broadcast: ['confirmed', 'failed', 'queued'],
  confirmed: [],
  rejected: [],
  failed: [],
};

/** Statuses a payout can enter more than once (their event key carries the sign attempt). */
const REENTERED: readonly PayoutStatus[] = ['queued', 'signing', 'broadcast'];

type Patchable = Omit<
  PayoutRow,
  | 'id'
  | 'merchant_id'
  | 'reference'
  | 'status'
  | 'asset'
  | 'network'
  | 'decimals'
  | 'to_address'
  | 'amount'
  | 'fee_amount'
  | 'created_at'
>;

export interface TransitionInput {
  to: PayoutStatus;
  actor: string;
  /** Extra columns that change with the status (reviewed_by, reject_reason, tx_hash, signed_tx…). */
  patch?: Partial<Patchable>;
  /**
   * The chain shows the payout sent with a transaction the database did not sign (a restore lost
   * it; restore/chain-reading.ts): `confirmed` from any open status.
   */
  foundOnChain?: boolean;
}

const OPEN: readonly PayoutStatus[] = ['pending_review', 'approved', 'queued', 'signing', 'broadcast'];

export function eventKey(row: PayoutRow): string {
  return REENTERED.includes(row.status)
    ? `payout:${row.id}:${row.status}:${row.sign_attempts}`
    : `payout:${row.id}:${row.status}`;
}

export async function transitionPayout(
  trx: Tx,
  clock: Clock,
  row: PayoutRow,
  t: TransitionInput,
): Promise<{ row: PayoutRow; view: PayoutView }> {
  const onChain = t.foundOnChain === true && t.to === 'confirmed' && OPEN.includes(row.status);
  if (!NEXT[row.status].includes(t.to) && !onChain) {
    throw new AppError('invalid_state', `Payout ${row.id} is ${row.status}; it cannot become ${t.to}`);
  }
  const now = clock.now().toISOString();
  const closes = t.to === 'rejected' || t.to === 'failed' || t.to === 'confirmed';
  const next: PayoutRow = { ...row, ...t.patch, status: t.to, updated_at: now };
  if (closes) next.fee_charged = t.to === 'confirmed' ? row.fee_amount : '0';

  // 1. Compare-and-set first: nothing else is written unless the row was still in row.status.
  const { id: _id, ...columns } = next;
  const moved = await updatePayoutStatus(trx, row.id, row.status, columns);
  if (!moved) throw new AppError('invalid_state', `Payout ${row.id} changed state meanwhile; read it again`);

  // 2. Money, in the same transaction.
  if (closes) {
    const held = await heldReservation(trx, row.merchant_id, row.id);
    if (held > 0n)
      await post(trx, clock, {
        merchantId: row.merchant_id,
        asset: row.asset,
        kind: 'release',
        amount: held,
        payoutId: row.id,
        actor: t.actor,
      });
    if (t.to === 'confirmed') {
      const charged = BigInt(row.amount) + BigInt(row.fee_amount);
      await post(trx, clock, {
        merchantId: row.merchant_id,
        asset: row.asset,
        kind: 'debit',
        amount: charged,
        payoutId: row.id,
        actor: t.actor,
      });
    }
  }

  // A hold lifted with the move, or a held payout closed: its exception is resolved with it.
  if (row.hold_reason !== null) await syncPayoutHold(trx, clock, next);

  // 3. The event, keyed per transition.
  const view = payoutView(next);
  await recordEvent(trx, clock, {
    merchantId: row.merchant_id,
    type: `payout.${t.to}`,
    subjectId: row.id,
    data: view,
    key: eventKey(next),
  });
  // 4. A refund's payout: the refund follows it in the same transaction.
  await followPayout(trx, clock, next);
  return { row: next, view };
}
