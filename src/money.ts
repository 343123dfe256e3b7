/**
 * Money is integers: amounts travel as decimal strings and live as bigint base units
 * (docs/adr/0001-money-as-integer-base-units.md). No floating point anywhere an amount is parsed,
 * computed or printed.
 */

const AMOUNT_TEXT = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const PERCENT_TEXT = /^(0|[1-9][0-9]{0,2})(\.[0-9]{1,6})?$/;

export class AmountError extends Error {}

/**
 * Parses `text` as an amount of an asset with `decimals` fraction digits into base units.
 * Rejects anything that is not plain decimal, zero, or finer than the asset's base unit.
 */
export function parseAmount(text: string, decimals: number, maxUnits?: bigint): bigint {
  const m = AMOUNT_TEXT.exec(text);
  if (!m) throw new AmountError('must be a plain decimal number such as "10" or "10.5"');
  const whole = m[1] as string;
  const frac = (m[2] ?? '.').slice(1);
  if (frac.length > decimals) throw new AmountError(`must have at most ${decimals} decimal places`);
  const units = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
  if (units <= 0n) throw new AmountError('must be greater than zero');
  if (maxUnits !== undefined && units > maxUnits)
    throw new AmountError('is larger than any amount of this asset can be on chain');
  return units;
}

/** Like parseAmount but also accepts zero (a fee or limit that is switched off). */
export function parseAmountOrZero(text: string, decimals: number): bigint {
  if (/^0(\.0+)?$/.test(text)) {
    if (text.length - 2 > decimals) throw new AmountError(`must have at most ${decimals} decimal places`);
    return 0n;
  }
  return parseAmount(text, decimals);
}

/** Base units → plain decimal trimmed of trailing zeros: "10.5", "0.000001", "100". */
export function formatAmount(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const frac = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

const UNITS_TEXT = /^(0|[1-9][0-9]*)$/;

/**
 * formatAmount of base units stored as text (every amount column), without BigInt arithmetic:
 * the point is splitting digits, and the views format four or five amounts per object read.
 * Text that is not canonical digits (a sign, a leading zero) takes formatAmount's path.
 */
export function formatUnits(units: string, decimals: number): string {
  if (!UNITS_TEXT.test(units)) return formatAmount(BigInt(units), decimals);
  if (decimals === 0) return units;
  const digits = units.padStart(decimals + 1, '0');
  const cut = digits.length - decimals;
  let end = digits.length;
  while (end > cut && digits.charCodeAt(end - 1) === 48) end--;
  return end === cut ? digits.slice(0, cut) : `${digits.slice(0, cut)}.${digits.slice(cut, end)}`;
}

/** The largest amount an asset can carry on TRON: int64 sun for TRX, uint256 for TRC20 tokens. */
export const MAX_NATIVE_UNITS = 2n ** 63n - 1n;
export const MAX_TRC20_UNITS = 2n ** 256n - 1n;

/** A percent rate as text ("0", "1.5", "2.25"): up to 3 integer and 6 fraction digits. */
export function parsePercent(text: string): string {
  if (!PERCENT_TEXT.test(text))
    throw new AmountError('must be a percent such as "1" or "1.5" (at most 6 decimal places)');
  const [w, f = ''] = text.split('.');
  const trimmed = f.replace(/0+$/, '');
  return trimmed ? `${w}.${trimmed}` : (w as string);
}

/** `percent` % of `units`, rounded up to the base unit (fees never round in the payer's favour). */
export function percentOf(units: bigint, percent: string): bigint {
  const [w, f = ''] = parsePercent(percent).split('.');
  const scale = 10n ** BigInt(f.length);
  const rate = BigInt(w as string) * scale + BigInt(f || '0');
  const denominator = 100n * scale;
  const product = units * rate;
  return (product + denominator - 1n) / denominator;
}

/** Compares two percent texts numerically (for the "above 3 percent" confirmations). */
export function percentAbove(percent: string, limit: string): boolean {
  const toMicro = (p: string) => {
    const [w, f = ''] = parsePercent(p).split('.');
    return BigInt(w as string) * 1_000_000n + BigInt(f.padEnd(6, '0'));
  };
  return toMicro(percent) > toMicro(limit);
}
