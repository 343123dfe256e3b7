/** The operator's view of a payout (`payout list|show`, the console): the merchant's and the review's fields. */
import type { PayoutView } from './schema.js';
import type { PayoutRow } from './store.js';
import { payoutView } from './view.js';

export interface OperatorPayoutView extends PayoutView {
  merchant_id: string;
  reviewed_by: string | null;
  reviewed_at: string | null;
  reject_reason: string | null;
  /** Why a queued payout waits (hot wallet short of the asset, TRX or energy; a hot wallet limit). */
  wait_reason: string | null;
  /** Receipt result of a failed payout. */
  fail_reason: string | null;
  /** Why the worker will not sign it until `payout approve` or `payout cancel` (set by `paygate restore`). */
  hold_reason: string | null;
}

export function operatorView(row: PayoutRow): OperatorPayoutView {
  return {
    ...payoutView(row),
    merchant_id: row.merchant_id,
    reviewed_by: row.reviewed_by,
    reviewed_at: row.reviewed_at,
    reject_reason: row.reject_reason,
    wait_reason: row.wait_reason,
    fail_reason: row.fail_reason,
    hold_reason: row.hold_reason,
  };
}
