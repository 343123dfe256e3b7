/**
 * Step 1 of the payout worker (worker.ts): whether an approved payout may be queued for signing.
 * Its merchant must be enabled, by the operator and by the owner (else it waits), its address still whitelisted and past the entry's
 * delay before first use (else it waits or is rejected), and never one of this gateway's own
 * addresses (rejected: it would be credited to no one). A refund's payout (the one a refund row
 * names) has no whitelist entry and needs none.
 */
import { recordAudit } from '../../audit/store.js';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/database.js';
import { isOwnAddress } from '../../addresses/store.js';
import { findMerchant } from '../../merchants/store.js';
import { disabledBy, merchantEnabled } from '../../merchants/switches.js';
import { refundOfPayout } from '../../refunds/store.js';
import { liveEntry } from '../../whitelist/store.js';
import { findPayoutForOperator, type PayoutRow } from '../store.js';
import { transitionPayout } from '../transitions.js';
import { setWaitReason } from './store.js';

/**
 * Inside the caller's write transaction: moves the payout `row` to `queued` or `rejected`, or
 * records why it waits. True when its status changed.
 */
export async function queueApprovedPayout(trx: Tx, clock: Clock, row: PayoutRow, actor: string): Promise<boolean> {
  const cur = await findPayoutForOperator(trx, row.id);
  if (!cur || cur.status !== 'approved') return false;
  const merchant = await findMerchant(trx, cur.merchant_id);
  if (!merchant || !merchantEnabled(merchant)) {
    const by = merchant ? disabledBy(merchant).join(' and ') : 'removal';
    await setWaitReason(
      trx,
      cur,
      `merchant disabled by ${by}: the payout waits until the merchant is enabled again (or payout cancel)`,
    );
    return false;
  }
  const own = await isOwnAddress(trx, cur.to_address);
  // A refund pays the customer's address, never whitelisted: the customer cannot wait out a delay.
  // Known by its refund row, not by its reference (a merchant may choose any reference).
  if (!own && (await refundOfPayout(trx, cur.id))) {
    await transitionPayout(trx, clock, cur, { to: 'queued', actor, patch: { wait_reason: null } });
    return true;
  }
  const entry = await liveEntry(trx, cur.merchant_id, cur.asset, cur.to_address);
  if (!own && entry && entry.usable_from > clock.now().toISOString()) {
    // Removed and added again since the approval: the new entry's delay before first use
    // holds for this payout too (else re-adding an address skipped it for approved payouts).
    await setWaitReason(
      trx,
      cur,
      `whitelist entry of ${cur.to_address} is in its delay before first use; usable from ${entry.usable_from}`,
    );
    return false;
  }
  if (own || !entry) {
    // An entry made before whitelists refused this gateway's own addresses (whitelist/service.ts).
    const reason = own
      ? `${cur.to_address} belongs to this gateway (a deposit address or the hot wallet): a payout there would be credited to no one`
      : `whitelist entry of ${cur.to_address} was removed before sending`;
    const at = clock.now().toISOString();
    await transitionPayout(trx, clock, cur, {
      to: 'rejected',
      actor,
      patch: { reject_reason: reason, reviewed_by: actor, reviewed_at: at, wait_reason: null },
    });
    await recordAudit(trx, clock, {
      actor,
      action: 'payout.reject',
      subjectType: 'payout',
      subjectId: cur.id,
      merchantId: cur.merchant_id,
      details: { reason },
    });
    return true;
  }
  await transitionPayout(trx, clock, cur, { to: 'queued', actor, patch: { wait_reason: null } });
  return true;
}
