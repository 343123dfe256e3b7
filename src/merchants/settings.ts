/**
 * A merchant with its payout review limits: what `merchant show` and `merchant update` print and
 * the console's `GET|PATCH /admin/v1/merchants/{id}` answer. The settings and the limits live in
 * their own features (merchants, payouts/limits); this is the one place that puts them together.
 */
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { AppError } from '../errors.js';
import {
  limitsView,
  parseLimitsInput,
  payoutLimits,
  setPayoutLimits,
  type PayoutLimitsView,
} from '../payouts/limits.js';
import { showMerchant, updateMerchantSettings, type MerchantView, type UpdateMerchantInput } from './service.js';

export type MerchantDetails = MerchantView & PayoutLimitsView;

export async function merchantDetails(db: Db, id: string): Promise<MerchantDetails> {
  const m = await showMerchant(db, id);
  return { ...m, ...limitsView(await payoutLimits(db, id)) };
}

export interface MerchantChanges extends UpdateMerchantInput {
  /** Decimal text or "none". */
  payoutAutoApproveLimit?: string;
  payoutDailyLimit?: string;
}

/** Settings and review limits; every value is checked before anything is written. */
export async function updateMerchant(
  db: Db,
  clock: Clock,
  actor: string,
  id: string,
  changes: MerchantChanges,
): Promise<MerchantDetails> {
  const { payoutAutoApproveLimit, payoutDailyLimit, ...settings } = changes;
  const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as UpdateMerchantInput;
  const limits = parseLimitsInput({ autoApproveLimit: payoutAutoApproveLimit, dailyLimit: payoutDailyLimit });
  if (Object.keys(given).length === 0 && Object.keys(limits).length === 0)
    throw new AppError('invalid_argument', 'Nothing to update: give at least one setting');
  const m =
    Object.keys(given).length > 0
      ? await updateMerchantSettings(db, clock, actor, id, given)
      : await showMerchant(db, id);
  const payout =
    Object.keys(limits).length > 0
      ? await setPayoutLimits(db, clock, actor, id, limits)
      : limitsView(await payoutLimits(db, id));
  return { ...m, ...payout };
}
