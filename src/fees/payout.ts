/**
 * Payout fees: per asset, a fixed amount plus a percent of the payout amount, charged to
 * the merchant. Stored as dated rows of the shared fee schedule (kind 'payout', see ./store.ts);
 * a payout copies the fee in force at its creation and keeps it. Without any schedule the fee is 0.
 */
import type { AssetCatalog } from '../assets/catalog.js';
import type { Clock } from '../clock.js';
import type { Db, Executor } from '../db/database.js';
import { AppError } from '../errors.js';
import { AmountError, formatUnits, parseAmountOrZero, parsePercent, percentAbove, percentOf } from '../money.js';
import { assertPayoutAsset } from '../payouts/assets.js';
import { parseValidFrom, recordAssetFee } from './service.js';
import { feeInForce, feesScheduled } from './store.js';

/** Whole units of the asset above which a fixed payout fee needs --confirm-high-amount. */
export const PAYOUT_FEE_CONFIRM_ABOVE_UNITS = 5n;
/** Percent above which a payout fee rate needs --confirm-high-rate. */
export const PAYOUT_FEE_CONFIRM_ABOVE_PERCENT = '3';

export interface PayoutFee {
  /** Fixed part in base units. */
  fixed: bigint;
  percent: string;
  /** The fee_schedules row, or null for the implicit zero fee. */
  scheduleId: number | null;
}

export const ZERO_PAYOUT_FEE: PayoutFee = { fixed: 0n, percent: '0', scheduleId: null };

export async function payoutFeeAt(db: Executor, asset: string, at: string): Promise<PayoutFee> {
  const row = await feeInForce(db, { kind: 'payout', asset }, at);
  return row ? { fixed: BigInt(row.amount ?? '0'), percent: row.percent ?? '0', scheduleId: row.id } : ZERO_PAYOUT_FEE;
}

/** fixed + percent of the amount, rounded up to the base unit (docs/adr/0015-fees-and-rounding.md). */
export function payoutFeeFor(amount: bigint, fee: PayoutFee): bigint {
  return fee.fixed + percentOf(amount, fee.percent);
}

export interface PayoutFeeView {
  asset: string;
  amount: string;
  percent: string;
  valid_from: string;
}

export interface SetPayoutFeeInput {
  asset: string;
  amount: string;
  percent: string;
  validFrom?: string;
  confirmHighAmount?: boolean;
  confirmHighRate?: boolean;
}

export async function setPayoutFee(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  input: SetPayoutFeeInput,
): Promise<PayoutFeeView> {
  const a = assertPayoutAsset(catalog, input.asset);
  let amount: bigint;
  let percent: string;
  try {
    amount = parseAmountOrZero(input.amount, a.decimals);
  } catch (e) {
    throw new AppError('invalid_argument', `--amount ${(e as AmountError).message}`);
  }
  try {
    percent = parsePercent(input.percent);
  } catch (e) {
    throw new AppError('invalid_argument', `--percent ${(e as AmountError).message}`);
  }
  if (!percentAbove('100', percent)) throw new AppError('invalid_argument', '--percent must be below 100');
  const missing: string[] = [];
  if (amount > PAYOUT_FEE_CONFIRM_ABOVE_UNITS * 10n ** BigInt(a.decimals) && !input.confirmHighAmount) {
    missing.push(`an amount above ${PAYOUT_FEE_CONFIRM_ABOVE_UNITS} ${a.symbol} needs --confirm-high-amount`);
  }
  if (percentAbove(percent, PAYOUT_FEE_CONFIRM_ABOVE_PERCENT) && !input.confirmHighRate) {
    missing.push(`a percent above ${PAYOUT_FEE_CONFIRM_ABOVE_PERCENT} needs --confirm-high-rate`);
  }
  if (missing.length > 0) throw new AppError('payout_fee_confirmation_required', `Payout fee: ${missing.join('; ')}`);
  const validFrom = parseValidFrom(input.validFrom, clock, 'payout_fee_valid_from_in_past');
  const confirmations = {
    confirm_high_amount: Boolean(input.confirmHighAmount),
    confirm_high_rate: Boolean(input.confirmHighRate),
  };
  const { shown } = await recordAssetFee(db, clock, actor, {
    kind: 'payout',
    asset: a,
    amount,
    percent,
    validFrom,
    confirmations,
  });
  return { asset: a.code, amount: shown, percent, valid_from: validFrom };
}

export interface PayoutFeeScheduleView {
  in_force: PayoutFeeView | null;
  scheduled: PayoutFeeView[];
}

export async function payoutFeeSchedule(
  db: Executor,
  catalog: AssetCatalog,
  asset: string,
  at: string,
): Promise<PayoutFeeScheduleView> {
  const a = assertPayoutAsset(catalog, asset);
  const show = (r: { amount: string | null; percent: string | null; valid_from: string }): PayoutFeeView => ({
    asset: a.code,
    amount: formatUnits(r.amount ?? '0', a.decimals),
    percent: r.percent ?? '0',
    valid_from: r.valid_from,
  });
  const now = await feeInForce(db, { kind: 'payout', asset: a.code }, at);
  return {
    in_force: now ? show(now) : null,
    scheduled: (await feesScheduled(db, { kind: 'payout', asset: a.code }, at)).map(show),
  };
}
