/**
 * Review rules (docs/adr/0019-payout-requests.md). A new payout is `pending_review` when any reason
 * applies, else `approved`. Reasons, in this order:
 * - amount_above_auto_approve_limit: amount > the merchant's auto-approve limit;
 * - daily_limit_exceeded: the amounts of the merchant's payouts in the asset created in the
 *   current UTC day (00:00 to 24:00 UTC of the creation moment), this one included and rejected or
 *   failed ones excluded, sum to more than the daily limit. Fees are not counted;
 * - first_payout_to_address: the merchant has no payout in the asset to this address that was
 *   approved (by the rules or an operator) and not rejected or failed.
 */
import type { Executor } from '../db/database.js';
import { exceedsLimit, type PayoutLimits } from './limits.js';
import type { ReviewReason } from './schema.js';
import { amountsCreatedBetween, hasPassedPayoutTo } from './store.js';

export interface ReviewInput {
  merchantId: string;
  asset: string;
  decimals: number;
  toAddress: string;
  /** When the address's current whitelist entry was made: "first payout" counts from there. */
  whitelistedAt: string;
  amount: bigint;
  now: Date;
  limits: PayoutLimits;
}

export function utcDay(now: Date): { from: string; to: string } {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { from: from.toISOString(), to: new Date(from.getTime() + 86_400_000).toISOString() };
}

export async function reviewReasons(db: Executor, r: ReviewInput): Promise<ReviewReason[]> {
  const reasons: ReviewReason[] = [];
  if (r.limits.autoApproveLimit !== null && exceedsLimit(r.amount, r.decimals, r.limits.autoApproveLimit)) {
    reasons.push('amount_above_auto_approve_limit');
  }
  if (r.limits.dailyLimit !== null) {
    const day = utcDay(r.now);
    const today = (await amountsCreatedBetween(db, r.merchantId, r.asset, day.from, day.to)).reduce(
      (a, b) => a + b,
      0n,
    );
    if (exceedsLimit(today + r.amount, r.decimals, r.limits.dailyLimit)) reasons.push('daily_limit_exceeded');
  }
  // "First" counts from the address's current whitelist entry: an address removed (say, reported
  // compromised) and added again starts over, whatever was paid to it before.
  if (!(await hasPassedPayoutTo(db, r.merchantId, r.asset, r.toAddress, r.whitelistedAt)))
    reasons.push('first_payout_to_address');
  return reasons;
}
