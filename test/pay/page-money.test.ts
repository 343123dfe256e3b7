/**
 * The payment page's amounts: what is missing is computed exactly from decimal text (no float
 * ever rounds a customer's balance), and prices show their cents with thousands separators
 * without dropping a digit the service gave.
 */
import { describe, expect, it } from 'vitest';
import { grouped, isZero, less, subtract, token } from '../../web/pay/src/money.js';

describe('the payment page’s amounts', () => {
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

  it('shows prices with their cents and separators, never rounded', () => {
    expect(grouped('1234.5', 2)).toBe('1,234.50');
    expect(grouped('1234567', 2)).toBe('1,234,567.00');
    expect(grouped('0.125', 2)).toBe('0.125');
    expect(grouped('999')).toBe('999');
  });

  it('names a token by its symbol, standard and network', () => {
    expect(token('USDT_TRON')).toEqual({ symbol: 'USDT', standard: 'TRC-20', chain: 'TRON' });
  });
});
