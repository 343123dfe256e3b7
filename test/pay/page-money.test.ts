/**
 * The pages' one money format: what is missing is computed exactly from decimal text (no float
 * ever rounds a customer's balance), and amounts are shown in the reader's locale by Intl from the
 * decimal text itself, digit for digit, however large.
 */
import { describe, expect, it } from 'vitest';
import { formatMoney, formatPrice, isZero, less, subtract, token } from '../../web/shared/money.js';

describe('the pages’ amounts', () => {
  it('says exactly what is missing', () => {
    expect(subtract('12.5', '12.499999')).toBe('0.000001');
    expect(subtract('0.3', '0.1')).toBe('0.2');
    expect(subtract('1234.5', '1000')).toBe('234.5');
    expect(subtract('100000000000000000.000001', '0.000001')).toBe('100000000000000000');
    expect(less('12.499999', '12.5')).toBe(true);
    expect(less('12.50', '12.5')).toBe(false);
    expect(isZero('0.000000')).toBe(true);
    expect(isZero('0.000001')).toBe(false);
  });

  it('formats big amounts digit for digit in each locale, never through a float', () => {
    // 2^53 + 1 and an 18-decimal token's smallest unit: a double would lose both.
    expect(formatMoney('9007199254740993.000001', 6, 'en')).toBe('9,007,199,254,740,993.000001');
    expect(formatMoney('123456789012345678901234567890.123456789012345678', 18, 'en')).toBe(
      '123,456,789,012,345,678,901,234,567,890.123456789012345678',
    );
    expect(formatMoney('1234567.000001', 6, 'ru')).toBe('1\u00a0234\u00a0567,000001');
    expect(formatMoney('1234567.5', 6, 'pt-BR')).toBe('1.234.567,5');
    expect(formatMoney('10', 6, 'en')).toBe('10');
    // More digits than the asset's decimals are still shown, never rounded away.
    expect(formatMoney('0.1234567', 6, 'en')).toBe('0.1234567');
    expect(formatMoney('not a number', 6, 'en')).toBe('not a number');
  });

  it('shows prices with their cents and the locale’s currency sign, never rounded', () => {
    expect(formatPrice('1234.5', 'USD', 'en')).toBe('$1,234.50');
    expect(formatPrice('1234567', 'USD', 'en')).toBe('$1,234,567.00');
    expect(formatPrice('0.125', 'USD', 'en')).toBe('$0.125');
    expect(formatPrice('10', 'USD', 'es')).toBe('10,00\u00a0US$');
  });

  it('names a token by its symbol, standard and network', () => {
    expect(token('USDT_TRON')).toEqual({ symbol: 'USDT', standard: 'TRC-20', chain: 'TRON' });
  });
});
