/**
 * Which assets a page invoice offers and what the customer pays in each: the dollar-pegged assets
 * that can hold the price, received by the merchant now, whose minimum the price meets, with the
 * service fee in force added when the customer pays it.
 */
import type { AssetCatalog, CatalogAsset } from '../assets/catalog.js';
import { assertReceivable, receivableAssets } from '../assets/service.js';
import type { Executor } from '../db/database.js';
import { AppError } from '../errors.js';
import { feesFor } from '../invoices/service.js';
import { formatAmount } from '../money.js';
import { priceInAsset, type Price } from './price.js';

export interface Offer {
  asset: CatalogAsset;
  /** The price in the asset's base units (the invoice's amount_requested). */
  amount: bigint;
  /** What the customer sends (amount_expected). */
  expected: bigint;
}

/** One asset's offer, or the reason it cannot be offered (thrown in the documented order). */
export async function offerOf(
  db: Executor,
  catalog: AssetCatalog,
  merchantId: string,
  code: string,
  price: Price,
  at: string,
): Promise<Offer> {
  const known = catalog.get(code);
  if (!known) throw new AppError('asset_not_supported', `Asset ${code} is not accepted for payment`);
  const amount = priceInAsset(price, known);
  if (amount === null)
    throw new AppError(
      'asset_not_offered',
      known.usdPegged
        ? `${code} cannot hold the price ${price.text}: it has ${known.decimals} decimal places`
        : `${code} is not pegged to the dollar and cannot be offered for a price in dollars`,
    );
  const asset = await assertReceivable(db, catalog, merchantId, code);
  if (amount < asset.minimumDeposit)
    throw new AppError(
      'amount_below_minimum',
      `The minimum deposit of ${asset.code} is ${formatAmount(asset.minimumDeposit, asset.decimals)}`,
    );
  const fees = await feesFor(db, merchantId, asset, amount, at);
  return { asset, amount, expected: fees.expected };
}

/**
 * The offers of a page invoice: every listed code must be offerable (the first refusal stands);
 * without a list, every pegged asset the merchant receives now that can be offered, the others
 * left out silently, and no_payable_assets when none is left.
 */
export async function offersFor(
  db: Executor,
  catalog: AssetCatalog,
  merchantId: string,
  listed: readonly string[] | null,
  price: Price,
  at: string,
): Promise<Offer[]> {
  if (listed !== null) {
    const offers: Offer[] = [];
    for (const code of listed) offers.push(await offerOf(db, catalog, merchantId, code, price, at));
    return offers;
  }
  const offers: Offer[] = [];
  for (const code of await receivableAssets(db, catalog, merchantId)) {
    if (!catalog.get(code)?.usdPegged) continue;
    try {
      offers.push(await offerOf(db, catalog, merchantId, code, price, at));
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
    }
  }
  if (offers.length === 0)
    throw new AppError(
      'no_payable_assets',
      `The project receives no dollar-pegged asset that can be offered for ${price.text} USD now`,
    );
  return offers;
}

/** The offers in catalog order (the page lists them so, whatever order the merchant listed them in). */
export function inCatalogOrder(catalog: AssetCatalog, offers: Offer[]): Offer[] {
  const order = new Map(catalog.assets.map((a, i) => [a.code, i]));
  return [...offers].sort((a, b) => (order.get(a.asset.code) ?? 0) - (order.get(b.asset.code) ?? 0));
}
