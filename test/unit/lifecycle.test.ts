/** The invoice lifecycle as a pure function of its deposits and the scan horizon, and the credit. */
import { describe, expect, it } from 'vitest';
import { deriveStatus, invoiceCredit, type LifecycleFacts } from '../../src/invoices/lifecycle.js';

const EXPIRES = '2026-05-01T10:00:00.000Z';
const BEFORE = '2026-05-01T09:59:00.000Z';
const AFTER = '2026-05-01T10:01:00.000Z';

type Deposit = LifecycleFacts['deposits'][number];
const seen = (amount: string, late = 0): Deposit => ({ amount, late, status: 'seen', credited_at: null });
const confirmed = (amount: string, late = 0): Deposit => ({ amount, late, status: 'confirmed', credited_at: null });
const credited = (amount: string, late = 0): Deposit => ({
  amount,
  late,
  status: 'confirmed',
  credited_at: EXPIRES,
});

const status = (deposits: Deposit[], horizon: string | null) =>
  deriveStatus({ expected: 10_000_000n, expiresAt: EXPIRES, deposits, horizon });

describe('deriveStatus', () => {
  it.each([
    ['nothing yet, before the first scan', [], null, 'created'],
    ['nothing, scan before the term', [], BEFORE, 'created'],
    ['nothing by the term', [], AFTER, 'expired'],
    ['a payment seen', [seen('10000000')], BEFORE, 'seen'],
    ['a part payment, still in time', [confirmed('4000000')], BEFORE, 'seen'],
    ['two confirmed parts making the amount', [confirmed('4000000'), confirmed('6000000')], BEFORE, 'confirmed'],
    ['paid and credited', [credited('10000000')], BEFORE, 'settled'],
    ['overpaid and credited', [credited('12000000')], AFTER, 'settled'],
    ['only part credited', [credited('4000000'), confirmed('6000000')], BEFORE, 'confirmed'],
    ['a part payment by the term', [confirmed('4000000')], AFTER, 'underpaid'],
    ['in-time payment still confirming past the term', [seen('10000000')], AFTER, 'seen'],
    ['the rest arrived late', [confirmed('4000000'), confirmed('6000000', 1)], AFTER, 'paid_late'],
    ['the rest late, not yet confirmed', [confirmed('4000000'), seen('6000000', 1)], AFTER, 'underpaid'],
    ['everything late', [confirmed('10000000', 1)], AFTER, 'paid_late'],
    ['too little, all late', [confirmed('9999999', 1)], AFTER, 'expired'],
  ] as const)('%s: %s', (_what, deposits, horizon, expected) => {
    expect(status([...deposits], horizon)).toBe(expected);
  });

  it('one base unit short is not paid', () => {
    expect(status([confirmed('9999999')], BEFORE)).toBe('seen');
    expect(status([confirmed('9999999')], AFTER)).toBe('underpaid');
  });
});

describe('invoiceCredit', () => {
  it('takes the fee out of the first credits and never goes below zero', () => {
    expect(invoiceCredit(0n, 100n)).toBe(0n);
    expect(invoiceCredit(100n, 100n)).toBe(0n);
    expect(invoiceCredit(99n, 100n)).toBe(0n);
    expect(invoiceCredit(10_000_000n, 100_000n)).toBe(9_900_000n);
    expect(invoiceCredit(10_000_000n, 0n)).toBe(10_000_000n);
  });
});
