/** Money as bigint base units: parsing, formatting and fee rounding, with properties over random input. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AmountError,
  formatAmount,
  formatUnits,
  parseAmount,
  parseAmountOrZero,
  parsePercent,
  percentAbove,
  percentOf,
} from '../src/money.js';

describe('parseAmount', () => {
  it('accepts plain decimals up to the asset decimals', () => {
    expect(parseAmount('10', 6)).toBe(10_000_000n);
    expect(parseAmount('10.5', 6)).toBe(10_500_000n);
    expect(parseAmount('0.000001', 6)).toBe(1n);
    expect(parseAmount('1.000000000000000001', 18)).toBe(10n ** 18n + 1n);
    expect(parseAmount('123456789012345678901234567890', 0)).toBe(123456789012345678901234567890n);
    expect(parseAmount('10.500000', 6)).toBe(10_500_000n);
  });

  it('refuses everything else', () => {
    for (const bad of [
      '',
      ' 1',
      '1 ',
      '01',
      '1.',
      '.5',
      '+1',
      '-1',
      '1e6',
      '0x10',
      '1,5',
      '0',
      '0.000000',
      'NaN',
      'Infinity',
      '١',
    ]) {
      expect(() => parseAmount(bad, 6), JSON.stringify(bad)).toThrow(AmountError);
    }
    expect(() => parseAmount('0.0000001', 6)).toThrow(/at most 6 decimal places/);
    expect(() => parseAmount('1.5', 0)).toThrow(AmountError);
  });

  it('parseAmountOrZero also takes zero, but not finer than the asset', () => {
    expect(parseAmountOrZero('0', 6)).toBe(0n);
    expect(parseAmountOrZero('0.000000', 6)).toBe(0n);
    expect(() => parseAmountOrZero('0.0000000', 6)).toThrow(AmountError);
    expect(parseAmountOrZero('2.5', 6)).toBe(2_500_000n);
  });
});

describe('formatAmount', () => {
  it('prints plain decimal trimmed of trailing zeros', () => {
    expect(formatAmount(10_500_000n, 6)).toBe('10.5');
    expect(formatAmount(1n, 6)).toBe('0.000001');
    expect(formatAmount(100_000_000n, 6)).toBe('100');
    expect(formatAmount(0n, 6)).toBe('0');
    expect(formatAmount(10n ** 18n + 1n, 18)).toBe('1.000000000000000001');
    expect(formatAmount(5n, 0)).toBe('5');
  });

  it('round-trips with parseAmount for any amount and decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 40n }), fc.integer({ min: 0, max: 18 }), (units, decimals) => {
        expect(parseAmount(formatAmount(units, decimals), decimals)).toBe(units);
      }),
    );
  });
});

describe('formatUnits (amount columns stored as text)', () => {
  it('formats as formatAmount does', () => {
    expect(formatUnits('10500000', 6)).toBe('10.5');
    expect(formatUnits('1', 6)).toBe('0.000001');
    expect(formatUnits('100000000', 6)).toBe('100');
    expect(formatUnits('0', 6)).toBe('0');
    expect(formatUnits('1000000000000000001', 18)).toBe('1.000000000000000001');
    expect(formatUnits('5', 0)).toBe('5');
    expect(formatUnits('-1500000', 6)).toBe('-1.5');
  });

  it('answers formatAmount(BigInt(text)) for any base units and decimals', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 70n), max: 2n ** 256n - 1n }),
        fc.integer({ min: 0, max: 30 }),
        (units, decimals) => {
          expect(formatUnits(units.toString(), decimals)).toBe(formatAmount(units, decimals));
        },
      ),
    );
  });

  it('gives text that is not canonical digits to formatAmount', () => {
    expect(formatUnits('0010', 1)).toBe('1');
    expect(formatUnits('-0', 6)).toBe('0');
  });

  it('refuses text that is not an integer, as BigInt does', () => {
    expect(() => formatUnits('1.5', 6)).toThrow(SyntaxError);
    expect(() => formatUnits('abc', 6)).toThrow(SyntaxError);
  });
});

describe('percentOf (fees round up to the base unit)', () => {
  it('rounds up, never down', () => {
    expect(percentOf(10_000_001n, '1.5')).toBe(150_001n);
    expect(percentOf(100n, '1')).toBe(1n);
    expect(percentOf(101n, '1')).toBe(2n);
    expect(percentOf(1n, '0.000001')).toBe(1n);
    expect(percentOf(0n, '5')).toBe(0n);
    expect(percentOf(12345n, '0')).toBe(0n);
  });

  it('is the smallest integer not below the exact value', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 99_999_999 }), (units, micro) => {
        const percent = `${Math.floor(micro / 1e6)}.${String(micro % 1e6).padStart(6, '0')}`;
        const fee = percentOf(units, percent);
        const exactNumerator = units * BigInt(micro); // fee ≈ units * micro / 1e8
        expect(fee * 100_000_000n >= exactNumerator).toBe(true);
        expect((fee - 1n) * 100_000_000n < exactNumerator || fee === 0n).toBe(true);
      }),
    );
  });

  it('parsePercent and percentAbove compare exactly', () => {
    expect(parsePercent('1.500')).toBe('1.5');
    expect(parsePercent('3.000000')).toBe('3');
    expect(() => parsePercent('1.1234567')).toThrow(AmountError);
    expect(() => parsePercent('-1')).toThrow(AmountError);
    expect(percentAbove('3.000001', '3')).toBe(true);
    expect(percentAbove('3.0', '3')).toBe(false);
    expect(percentAbove('2.99', '3')).toBe(false);
  });
});
