/**
 * `payout_held`, the operator's exception: open while a payout carries a hold (a restore's, or
 * one made during the chain reading that follows it), resolved by `system` in the transaction
 * that lifts the hold or closes the payout.
 */
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import type { PayoutStatus } from '../db/schema.js';
import { findOpen, resolveException, upsertOpen } from './store.js';

const FINAL: readonly PayoutStatus[] = ['confirmed', 'rejected', 'failed'];

export interface HeldFacts {
  id: string;
  merchant_id: string;
  asset: string;
  decimals: number;
  amount: string;
  status: PayoutStatus;
  hold_reason: string | null;
}

/** Call after any write that may set or lift a payout's hold, in its transaction. */
export async function syncPayoutHold(trx: Tx, clock: Clock, p: HeldFacts): Promise<void> {
  const subject = {
    kind: 'payout_held' as const,
    merchantId: p.merchant_id,
    payoutId: p.id,
    asset: p.asset,
    decimals: p.decimals,
  };
  if (p.hold_reason !== null && !FINAL.includes(p.status)) {
    await upsertOpen(trx, clock, subject, BigInt(p.amount));
    return;
  }
  const open = await findOpen(trx, subject);
  if (open) await resolveException(trx, clock, open.id, { note: `hold lifted (payout ${p.status})`, by: 'system' });
}

/** The same for payouts named by id (a restore holds many at once). */
export async function syncPayoutHolds(trx: Tx, clock: Clock, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = await trx
    .selectFrom('payouts')
    .select(['id', 'merchant_id', 'asset', 'decimals', 'amount', 'status', 'hold_reason'])
    .where('id', 'in', [...ids])
    .execute();
  for (const r of rows) await syncPayoutHold(trx, clock, r);
}
