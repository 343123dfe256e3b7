/**
 * Hot wallet limits (`paygate wallet limit <asset>`): what the payout worker itself may send from
 * the hot wallet, per asset, beyond the merchants' review limits. Checked before signing; a payout
 * over a limit waits in `queued` with the reason until the operator raises the limit or cancels it.
 *
 * - per payout: the largest amount one payout may send;
 * - per day: the sum of payouts first signed in the same UTC day (a re-signed payout counts once,
 *   on the day it was first signed; failed and rejected payouts do not count);
 * - fee limit: the highest fee_limit (TRX burned for energy) a TRC20 transfer may carry.
 */
import type { AssetCatalog } from '../../assets/catalog.js';
import { requireCatalogAsset } from '../../assets/service.js';
import { recordAudit } from '../../audit/store.js';
import type { Clock } from '../../clock.js';
import { writeTx, type Db, type Executor } from '../../db/database.js';
import { AppError } from '../../errors.js';
import { AmountError, formatAmount, formatUnits, parseAmount } from '../../money.js';
import { utcDay } from '../review.js';
import type { PayoutRow } from '../store.js';

/** fee_limit cap (sun) when the operator set none: 100 TRX (tronweb's default is 150). */
export const DEFAULT_FEE_LIMIT_CAP = 100_000_000n;
export const TRX_DECIMALS = 6;

export interface HotWalletLimits {
  perPayout: bigint | null;
  perDay: bigint | null;
  /** sun */
  feeLimitCap: bigint;
}

/** The asset's row of limits; none: no limit but the default fee cap. */
async function limitRow(db: Executor, asset: string) {
  return db.selectFrom('hot_wallet_limits').selectAll().where('asset', '=', asset).executeTakeFirst();
}

const feeLimitCapOf = (row: { fee_limit: string | null } | undefined): bigint =>
  row?.fee_limit != null ? BigInt(row.fee_limit) : DEFAULT_FEE_LIMIT_CAP;

export async function hotWalletLimits(db: Executor, asset: string): Promise<HotWalletLimits> {
  const row = await limitRow(db, asset);
  return {
    perPayout: row?.per_payout != null ? BigInt(row.per_payout) : null,
    perDay: row?.per_day != null ? BigInt(row.per_day) : null,
    feeLimitCap: feeLimitCapOf(row),
  };
}

/** Base units of `asset` the worker has signed today (UTC), `except` one payout. */
export async function signedToday(db: Executor, asset: string, now: Date, except: string): Promise<bigint> {
  const { from, to } = utcDay(now);
  const rows = await db
    .selectFrom('payouts')
    .select('amount')
    .where('asset', '=', asset)
    .where('first_signed_at', '>=', from)
    .where('first_signed_at', '<', to)
    .where('status', 'in', ['queued', 'signing', 'broadcast', 'confirmed'])
    .where('id', '!=', except)
    .execute();
  return rows.reduce((sum, r) => sum + BigInt(r.amount), 0n);
}

/** Why `row` may not be signed now under the hot wallet limits; null when it may. */
export async function limitReason(
  db: Executor,
  row: PayoutRow,
  limits: HotWalletLimits,
  now: Date,
): Promise<string | null> {
  const amount = BigInt(row.amount);
  const fmt = (u: bigint) => `${formatAmount(u, row.decimals)} ${row.asset}`;
  if (limits.perPayout !== null && amount > limits.perPayout) {
    return `above the hot wallet per-payout limit of ${fmt(limits.perPayout)}; raise it (paygate wallet limit ${row.asset} --per-payout X) or cancel the payout`;
  }
  if (limits.perDay !== null) {
    const used = await signedToday(db, row.asset, now, row.id);
    if (used + amount > limits.perDay) {
      return `the hot wallet day limit of ${fmt(limits.perDay)} is reached (${fmt(used)} signed today, UTC); it waits for tomorrow, a higher limit (paygate wallet limit ${row.asset} --per-day X) or a cancel`;
    }
  }
  return null;
}

export interface HotWalletLimitView {
  asset: string;
  per_payout: string | null;
  per_day: string | null;
  /** TRX */
  fee_limit: string;
  updated_at: string | null;
  updated_by: string | null;
}

export interface SetLimitInput {
  /** Decimal text in the asset, or "none". Undefined keeps the current value. */
  perPayout?: string;
  perDay?: string;
  /** TRX, or "default". */
  feeLimit?: string;
}

export async function hotWalletLimitView(
  db: Executor,
  catalog: AssetCatalog,
  code: string,
): Promise<HotWalletLimitView> {
  const asset = requireCatalogAsset(catalog, code);
  const row = await limitRow(db, asset.code);
  const units = (v: string | null | undefined) => (v == null ? null : formatUnits(v, asset.decimals));
  return {
    asset: asset.code,
    per_payout: units(row?.per_payout),
    per_day: units(row?.per_day),
    fee_limit: formatAmount(feeLimitCapOf(row), TRX_DECIMALS),
    updated_at: row?.updated_at ?? null,
    updated_by: row?.updated_by ?? null,
  };
}

function parseLimit(flag: string, text: string, decimals: number, none: string): string | null {
  if (text.trim() === none) return null;
  try {
    const units = parseAmount(text.trim(), decimals);
    if (units <= 0n) throw new AmountError('must be greater than zero');
    return units.toString();
  } catch (e) {
    throw new AppError('invalid_argument', `${flag}: ${(e as Error).message} (or "${none}")`);
  }
}

export async function setHotWalletLimit(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  code: string,
  input: SetLimitInput,
): Promise<HotWalletLimitView> {
  const asset = requireCatalogAsset(catalog, code);
  const patch: { per_payout?: string | null; per_day?: string | null; fee_limit?: string | null } = {};
  if (input.perPayout !== undefined)
    patch.per_payout = parseLimit('--per-payout', input.perPayout, asset.decimals, 'none');
  if (input.perDay !== undefined) patch.per_day = parseLimit('--per-day', input.perDay, asset.decimals, 'none');
  if (input.feeLimit !== undefined)
    patch.fee_limit = parseLimit('--fee-limit', input.feeLimit, TRX_DECIMALS, 'default');
  if (patch.fee_limit && BigInt(patch.fee_limit) > 15_000_000_000n)
    throw new AppError('invalid_argument', '--fee-limit: at most 15000 TRX (the network maximum)');
  if (Object.keys(patch).length === 0) return hotWalletLimitView(db, catalog, asset.code);
  return writeTx(db, async (trx) => {
    const now = clock.now().toISOString();
    const before = await limitRow(trx, asset.code);
    const row = {
      asset: asset.code,
      per_payout: before?.per_payout ?? null,
      per_day: before?.per_day ?? null,
      fee_limit: before?.fee_limit ?? null,
      ...patch,
      updated_at: now,
      updated_by: actor,
    };
    await trx
      .insertInto('hot_wallet_limits')
      .values(row)
      .onConflict((oc) =>
        oc.column('asset').doUpdateSet({
          per_payout: row.per_payout,
          per_day: row.per_day,
          fee_limit: row.fee_limit,
          updated_at: now,
          updated_by: actor,
        }),
      )
      .execute();
    const view = await hotWalletLimitView(trx, catalog, asset.code);
    await recordAudit(trx, clock, {
      actor,
      action: 'wallet.limit',
      subjectType: 'hot_wallet_limit',
      subjectId: asset.code,
      details: { per_payout: view.per_payout, per_day: view.per_day, fee_limit: view.fee_limit },
    });
    return view;
  });
}
