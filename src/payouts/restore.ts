/**
 * Restoring a backup is restoring the past, and the chain has moved on: a payout the backup shows
 * `approved` or `queued` may have been signed and sent after the backup was taken, and one it
 * shows `signing` or `broadcast` may have been signed anew since (with other bytes than the ones
 * restored). So `paygate restore` leaves the payouts safe by itself, in the restored file before
 * any process can open it:
 * - the brake on every asset is set (`payout halt --worker`): no payout is signed and the sweeper
 *   signs nothing until the operator, having checked the hot wallet on chain, runs
 *   `paygate payout resume --worker`;
 * - each unfinished payout gets a hold (`hold_reason`): the worker never signs it, even after the
 *   resume, until the operator decides: `payout approve` (it was not sent: send it) or
 *   `payout cancel` (it was sent, or must not be: release it). A held `signing` or `broadcast`
 *   payout is still followed with its stored bytes (the same txid can land only once); the hold
 *   matters only if those bytes prove dead and it would be signed anew.
 */
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import type { PayoutStatus } from '../db/schema.js';
import { ALL_ASSETS, applyHalt } from './halts.js';

/** The statuses in which a payout may have been signed after the backup without the backup knowing. */
export const UNFINISHED: readonly PayoutStatus[] = ['approved', 'queued', 'signing', 'broadcast'];

export interface RestoreHolds {
  /** Payouts held for the operator's decision. */
  held: number;
}

export async function holdAfterRestore(trx: Tx, clock: Clock, actor: string, backup: string): Promise<RestoreHolds> {
  const at = clock.now().toISOString();
  const reason = `restored from a backup (${at}): it may have been signed after the backup was taken; check the hot wallet's transfers on chain, then payout approve (send it) or payout cancel (release it)`;
  await applyHalt(trx, clock, actor, {
    scope: ALL_ASSETS,
    worker: true,
    halted: true,
    reason: `paygate restore ${backup}`,
  });
  const rows = await trx
    .selectFrom('payouts')
    .select(['id', 'merchant_id', 'status'])
    .where('status', 'in', UNFINISHED)
    .where('hold_reason', 'is', null)
    .execute();
  if (rows.length > 0) {
    await trx
      .updateTable('payouts')
      .set({ hold_reason: reason })
      .where('status', 'in', UNFINISHED)
      .where('hold_reason', 'is', null)
      .execute();
  }
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
  return { held: rows.length };
}
