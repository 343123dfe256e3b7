// One money format for the payment page and the cabinet. Amounts stay decimal text from the API to
// the screen: arithmetic is on bigint, never on floats, and Intl formats the decimal text itself
// (a string given to Intl.NumberFormat is read exactly, not through a double).

/** `text` as an integer count of 10^-scale units. */
function units(text: string, scale: number): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole + fraction.padEnd(scale, '0').slice(0, scale));
}

function scaleOf(...texts: string[]): number {
  return Math.max(0, ...texts.map((t) => t.split('.')[1]?.length ?? 0));
}

function text(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** a − b, exactly. */
export function subtract(a: string, b: string): string {
  const scale = scaleOf(a, b);
  return text(units(a, scale) - units(b, scale), scale);
}

/** a < b, exactly. */
export function less(a: string, b: string): boolean {
  const scale = scaleOf(a, b);
  return units(a, scale) < units(b, scale);
}

export function isZero(a: string): boolean {
  return !/[1-9]/.test(a);
}

/** The most fraction digits Intl.NumberFormat takes (Node 20, Chromium). */
const MAX_FRACTION = 20;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** A locale Intl knows, or the runtime's default for anything it does not. */
export type Locale = string | readonly string[] | undefined;

function formatter(locale: Locale, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  try {
    return new Intl.NumberFormat(locale as string | string[] | undefined, options);
  } catch {
    return new Intl.NumberFormat(undefined, options);
  }
}

/**
 * An amount as people of `locale` read it (`1234567.5` → `1,234,567.5` in English, `1 234 567,5`
 * in Russian). Never rounds: every digit the API gave is shown, up to `decimals` (the asset's
 * decimals) or more when the text has more; at least `minFraction` fraction digits.
 */
export function formatMoney(amount: string, decimals: number, locale: Locale, minFraction = 0): string {
  if (!DECIMAL.test(amount)) return amount;
  const digits = amount.split('.')[1]?.length ?? 0;
  if (digits > MAX_FRACTION) return amount;
  const max = Math.min(MAX_FRACTION, Math.max(decimals, digits, minFraction));
  return formatter(locale, { minimumFractionDigits: Math.min(minFraction, max), maximumFractionDigits: max }).format(
    amount as Intl.StringNumericLiteral,
  );
}

/** A price in a fiat currency (`USD`), with its cents and the locale's currency sign and order. */
export function formatPrice(price: string, currency: string, locale: Locale): string {
  if (!DECIMAL.test(price)) return `${price} ${currency}`;
  const digits = Math.min(MAX_FRACTION, Math.max(2, price.split('.')[1]?.length ?? 0));
  return formatter(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: digits,
  }).format(price as Intl.StringNumericLiteral);
}

/** `USDT_TRON` → its symbol `USDT`, its token standard `TRC-20` and its network `TRON`. */
export function token(asset: string): { symbol: string; standard: string; chain: string } {
  const cut = asset.lastIndexOf('_');
  const symbol = cut > 0 ? asset.slice(0, cut) : asset;
  const chain = cut > 0 ? asset.slice(cut + 1) : '';
  return { symbol, standard: chain === 'TRON' ? 'TRC-20' : chain, chain };
}
