/**
 * Which assets payouts can be made in. Two levels, two codes:
 * - `asset_not_payable` (permanent): unknown to the catalog, receive-only, or payouts locked off;
 * - `asset_payouts_disabled` (temporary): the operator switched payouts off (`asset set --payouts off`).
 */
import type { AssetCatalog, CatalogAsset } from '../assets/catalog.js';
import { effective } from '../assets/service.js';
import { operatorSwitch } from '../assets/store.js';
import type { Executor } from '../db/database.js';
import { AppError } from '../errors.js';

/** Whether the catalog lets this asset be paid out at all (operator switches aside). */
export function isPayoutAsset(a: CatalogAsset): boolean {
  return !a.receiveOnly && !(a.locked.has('payouts') && !a.payouts);
}

export function assertPayoutAsset(catalog: AssetCatalog, code: string): CatalogAsset {
  const a = catalog.get(code);
  if (a === undefined)
    throw new AppError('asset_not_payable', `The service makes no payouts in ${code}: it is not in the catalog`);
  if (!isPayoutAsset(a)) {
    const why = a.receiveOnly ? 'is receive-only' : 'has payouts disabled in the catalog';
    throw new AppError('asset_not_payable', `The service makes no payouts in ${code}: it ${why}`);
  }
  return a;
}

/** The operator's switch (with the catalog default when none is set). */
export async function assertPayoutsSwitchedOn(db: Executor, a: CatalogAsset): Promise<void> {
  if (!effective(a, await operatorSwitch(db, a.code), 'payouts')) {
    throw new AppError(
      'asset_payouts_disabled',
      `Payouts in ${a.code} are temporarily switched off; retry later with the same reference`,
    );
  }
}
