/** Page prices: exact decimal dollars, and what each dollar token is asked for them. */
import { describe, expect, it } from 'vitest';
import type { CatalogAsset } from '../../src/assets/catalog.js';
import { AmountError } from '../../src/money.js';
import { parsePrice, priceInAsset } from '../../src/pay/price.js';

const asset = (decimals: number, usdPegged = true, maxUnits = 2n ** 256n - 1n): CatalogAsset => ({
  code: 'USDT_TRON',
  symbol: 'USDT',
  name: 'Tether USD',
  type: 'trc20',
  contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  decimals,
  usdPegged,
  minimumDeposit: 1n,
  maxUnits,
  payments: true,
  payouts: true,
  receiveOnly: false,
  locked: new Set(),
});

describe('parsePrice', () => {
  it('keeps the digits and trims trailing fraction zeros', () => {
    expect(parsePrice('10')).toEqual({ text: '10', fractionDigits: 0 });
    expect(parsePrice('10.50')).toEqual({ text: '10.5', fractionDigits: 1 });
    expect(parsePrice('0.01')).toEqual({ text: '0.01', fractionDigits: 2 });
    expect(parsePrice('12345678901234567890.123456789')).toEqual({
      text: '12345678901234567890.123456789',
      fractionDigits: 9,
    });
  });

  it.each(['', '0', '0.00', '-1', '+1', '01', '1.', '.5', '1e3', ' 1', '1,5', 'NaN', '１'])(
    'refuses %j with words a person can act on',
    (text) => {
      expect(() => parsePrice(text)).toThrow(AmountError);
    },
  );

  it('says zero is too little rather than malformed', () => {
    expect(() => parsePrice('0.0')).toThrow('must be greater than zero');
  });
});

describe('priceInAsset', () => {
  it('asks the same digits in base units of a dollar token', () => {
    expect(priceInAsset(parsePrice('10.5'), asset(6))).toBe(10_500_000n);
    expect(priceInAsset(parsePrice('0.000001'), asset(6))).toBe(1n);
    expect(priceInAsset(parsePrice('3'), asset(18))).toBe(3n * 10n ** 18n);
  });

  it('offers nothing where the token cannot carry the price', () => {
    expect(priceInAsset(parsePrice('10'), asset(6, false))).toBeNull();
    expect(priceInAsset(parsePrice('0.0000001'), asset(6))).toBeNull();
    expect(priceInAsset(parsePrice('10'), asset(6, true, 9_999_999n))).toBeNull();
  });
});
