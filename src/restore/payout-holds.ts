/**
 * Restoring a backup is restoring the past, and the chain has moved on: any payout the backup shows
 * not final may have been signed and sent after the backup was taken (`pending_review` included:
 * it may have been approved and sent since), or signed anew with other bytes than the ones
 * restored. So `paygate restore` leaves the payouts safe by itself, in the restored database before
 * any process can open it:
 * - the payout worker and the sweeper are halted on every asset (the worker brake of
 *   `payout halt --worker`, without its request brake: `POST /v1/payouts` still accepts requests,
 *   which wait) until the operator runs `paygate payout resume --worker`;
 * - each payout that is not final gets a hold (`hold_reason`): the worker never signs it, even after
 *   the resume. A held `signing` or `broadcast` payout is still followed with its stored bytes (the
 *   same txid can land only once);
 * - the chain since the backup is read (chain-reading.ts): each held payout found sent is
 *   confirmed with the txid on chain; the others wait for `payout approve` (not sent: send it) or
 *   `payout cancel`, which answers invalid_state for approve until the reading is done.
 */
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import type { PayoutStatus } from '../db/schema.js';
import { formatUnits } from '../money.js';
import { beginReading } from './chain-reading.js';
import { ALL_ASSETS, applyHalt } from '../payouts/halts.js';
import { syncPayoutHolds } from '../exceptions/payouts.js';
import { holdUnheldPayouts, oldestHeldPayoutCreatedAt } from '../payouts/store.js';

/** The statuses in which a payout may have been signed after the backup without the backup knowing. */
export const UNFINISHED: readonly PayoutStatus[] = ['pending_review', 'approved', 'queued', 'signing', 'broadcast'];

export interface HeldPayout {
  payout_id: string;
  status: PayoutStatus;
  asset: string;
  /** In the asset's units. */
  amount: string;
  to_address: string;
}

export interface RestoreHolds {
  /** Payouts held until the chain since the backup is read, then the operator's decision. */
  held: number;
  payouts: HeldPayout[];
}

export async function holdAfterRestore(trx: Tx, clock: Clock, actor: string, backup: string): Promise<RestoreHolds> {
  const at = clock.now().toISOString();
  const reason = `restored from a backup (${at}): it may have been sent after the backup was taken; the chain since the backup is being read (paygate payout list --unknown-on-chain), then payout approve (send it) or payout cancel (release it)`;
  // The worker brake only: requests are accepted during the hold and wait (an operator's
  // `payout halt` is what answers 503).
  await applyHalt(trx, clock, actor, {
    scope: ALL_ASSETS,
    worker: true,
    halted: true,
    brakes: ['worker'],
    reason: `paygate restore ${backup}`,
  });
  const rows = await holdUnheldPayouts(trx, UNFINISHED, reason);
  await syncPayoutHolds(
    trx,
    clock,
    rows.map((r) => r.id),
  );
  for (const r of rows) {
    await recordAudit(trx, clock, {
      actor,
      action: 'payout.hold',
      subjectType: 'payout',
      subjectId: r.id,
      merchantId: r.merchant_id,
      details: { status: r.status, reason },
    });
  }
  // From the oldest payout held now, those an earlier restore held included: a backup without a
  // cursor is read from there.
  await beginReading(trx, clock, actor, await oldestHeldPayoutCreatedAt(trx, UNFINISHED));
  return {
    held: rows.length,
    payouts: rows.map((r) => ({
      payout_id: r.id,
      status: r.status,
      asset: r.asset,
      amount: formatUnits(r.amount, r.decimals),
      to_address: r.to_address,
    })),
  };
}
