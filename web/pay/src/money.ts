// Amounts stay decimal text from the API to the screen: arithmetic is on bigint, never on floats.

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

/**
 * Decimal text with thousands separators, and at least `minFraction` fraction digits (a price in
 * dollars shows its cents). Never rounds: every digit the API gave is shown.
 */
export function grouped(amount: string, minFraction = 0): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  const withCommas = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const digits = fraction.padEnd(minFraction, '0');
  return digits ? `${withCommas}.${digits}` : withCommas;
}

/** `USDT_TRON` → its symbol `USDT`, its token standard `TRC-20` and its network `TRON`. */
export function token(asset: string): { symbol: string; standard: string; chain: string } {
  const cut = asset.lastIndexOf('_');
  const symbol = cut > 0 ? asset.slice(0, cut) : asset;
  const chain = cut > 0 ? asset.slice(cut + 1) : '';
  return { symbol, standard: chain === 'TRON' ? 'TRC-20' : chain, chain };
}
