/**
 * Prices of page invoices: exact decimal text in dollars, never a float. One token of a
 * dollar-pegged asset is one dollar (docs/adr/0063-page-invoices.md), so a price in an asset is the
 * same digits in that asset's base units, which exist only when the asset's decimals hold the
 * price's fraction digits.
 */
import type { CatalogAsset } from '../assets/catalog.js';
import { AmountError, parseAmount } from '../money.js';

const PRICE_TEXT = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** A price as stored and shown: canonical text (trailing fraction zeros trimmed) and its fraction digits. */
export interface Price {
  text: string;
  fractionDigits: number;
}

/** Parses a price ("10", "10.5", "0.01"): plain decimal, greater than zero; AmountError otherwise. */
export function parsePrice(text: string): Price {
  const m = PRICE_TEXT.exec(text);
  if (!m) throw new AmountError('must be a plain decimal number such as "10" or "10.5"');
  const whole = m[1] as string;
  const fraction = (m[2] ?? '.').slice(1).replace(/0+$/, '');
  if (/^0*$/.test(whole + fraction)) throw new AmountError('must be greater than zero');
  return { text: fraction ? `${whole}.${fraction}` : whole, fractionDigits: fraction.length };
}

/**
 * The price in base units of `asset`, or null when the asset cannot be offered for it: not pegged
 * to the dollar, too few decimals for the price's fraction, or more than the chain can carry.
 */
export function priceInAsset(price: Price, asset: CatalogAsset): bigint | null {
  if (!asset.usdPegged || price.fractionDigits > asset.decimals) return null;
  try {
    return parseAmount(price.text, asset.decimals, asset.maxUnits);
  } catch {
    return null;
  }
}
