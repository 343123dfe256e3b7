/**
 * One asset with everything the operator sets on it: the payments/payouts switches (assets) and
 * the sweep threshold (sweeper). What `asset set` prints and the console's `GET|PATCH
 * /admin/v1/assets/{asset}` answer; the switches and the threshold keep their own rules and audit
 * records in their features.
 */
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { AppError } from '../errors.js';
import { formatAmount } from '../money.js';
import { parseSweepThreshold, setSweepThreshold, thresholdOf } from '../sweeper/thresholds.js';
import type { AssetCatalog } from './catalog.js';
import { requireCatalogAsset, setAssetFlags, showAsset, type AssetView } from './service.js';

export interface AssetDetails extends AssetView {
  /** A deposit address is swept once it holds at least this much of the asset. */
  sweep_threshold: string;
}

export async function assetDetails(db: Db, catalog: AssetCatalog, code: string): Promise<AssetDetails> {
  const view = await showAsset(db, catalog, code);
  const asset = requireCatalogAsset(catalog, code);
  return { ...view, sweep_threshold: formatAmount(await thresholdOf(db, asset), asset.decimals) };
}

export interface AssetChanges {
  payments?: boolean;
  payouts?: boolean;
  /** Decimal text in the asset (0: sweep any amount worth its cost). */
  sweepThreshold?: string;
}

/** Switches and threshold; a bad value refuses the whole change before anything is written. */
export async function updateAsset(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  code: string,
  changes: AssetChanges,
): Promise<AssetDetails> {
  const asset = requireCatalogAsset(catalog, code);
  const { payments, payouts, sweepThreshold } = changes;
  if (payments === undefined && payouts === undefined && sweepThreshold === undefined)
    throw new AppError('invalid_argument', 'Give --payments on|off, --payouts on|off and/or --sweep-threshold X');
  if (sweepThreshold !== undefined) parseSweepThreshold(asset, sweepThreshold);
  if (payments !== undefined || payouts !== undefined)
    await setAssetFlags(db, clock, actor, catalog, code, { payments, payouts });
  if (sweepThreshold !== undefined) await setSweepThreshold(db, clock, actor, catalog, code, sweepThreshold);
  return assetDetails(db, catalog, code);
}
