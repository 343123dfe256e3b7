/**
 * Sweep thresholds: an address is swept automatically once its balance in an asset reaches the
 * threshold. The catalog ships a default per asset (`sweep_threshold`); the operator overrides it
 * with `paygate asset set <asset> --sweep-threshold X` (0 = sweep anything worth more than its cost).
 */
import type { AssetCatalog, CatalogAsset } from '../assets/catalog.js';
import { requireCatalogAsset } from '../assets/service.js';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import { AppError } from '../errors.js';
import { AmountError, formatAmount, parseAmountOrZero } from '../money.js';
import { storedThreshold, upsertThreshold } from './store.js';

export async function thresholdOf(db: Executor, asset: CatalogAsset): Promise<bigint> {
  return (await storedThreshold(db, asset.code)) ?? asset.sweepThreshold ?? 10n ** BigInt(asset.decimals);
}

/** Base units of a threshold text; invalid_argument when it is not an amount of the asset. */
export function parseSweepThreshold(asset: CatalogAsset, text: string): bigint {
  let units: bigint;
  try {
    units = parseAmountOrZero(text, asset.decimals);
  } catch (e) {
    throw new AppError('invalid_argument', `--sweep-threshold ${(e as AmountError).message}`);
  }
  if (units > asset.maxUnits)
    throw new AppError('invalid_argument', '--sweep-threshold is larger than the asset can hold');
  return units;
}

export async function setSweepThreshold(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  code: string,
  text: string,
): Promise<{ asset: string; sweep_threshold: string }> {
  const asset = requireCatalogAsset(catalog, code);
  const units = parseSweepThreshold(asset, text);
  await writeTx(db, async (trx) => {
    await upsertThreshold(trx, code, units, clock.now().toISOString());
    await recordAudit(trx, clock, {
      actor,
      action: 'asset.sweep_threshold',
      subjectType: 'asset',
      subjectId: code,
      details: { sweep_threshold: text },
    });
  });
  return { asset: code, sweep_threshold: formatAmount(units, asset.decimals) };
}
