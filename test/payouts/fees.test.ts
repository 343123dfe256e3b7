/** `fee payout`: confirmations, start moments, payable assets, and the fee a payout gets. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { listAudit } from '../../src/audit/store.js';
import { ManualClock } from '../../src/clock.js';
import {
  payoutFeeAt,
  payoutFeeFor,
  payoutFeeSchedule,
  setPayoutFee,
  type SetPayoutFeeInput,
} from '../../src/fees/payout.js';
import { openTempDb } from './fixture.js';

describe('payout fees', () => {
  let h: Awaited<ReturnType<typeof openTempDb>>;
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  const catalog = loadCatalog('devnet');
  const set = (input: Partial<SetPayoutFeeInput>) =>
    setPayoutFee(h.database.db, clock, 'cli:op', catalog, {
      asset: 'USDT_TRON',
      amount: '1',
      percent: '0.5',
      ...input,
    });

  beforeAll(async () => {
    h = await openTempDb();
  });
  afterAll(() => h.close());

  it('is zero before any schedule', async () => {
    expect(await payoutFeeAt(h.database.db, 'TRX_TRON', clock.now().toISOString())).toEqual({
      fixed: 0n,
      percent: '0',
      scheduleId: null,
    });
  });

  it('needs --confirm-high-amount above 5 units and --confirm-high-rate above 3 percent, naming which', async () => {
    await expect(set({ amount: '5.000001' })).rejects.toMatchObject({
      code: 'payout_fee_confirmation_required',
      message: expect.stringMatching(/--confirm-high-amount/),
    });
    await expect(set({ amount: '5.000001' })).rejects.toMatchObject({
      message: expect.not.stringMatching(/--confirm-high-rate/),
    });
    await expect(set({ percent: '3.000001' })).rejects.toMatchObject({
      code: 'payout_fee_confirmation_required',
      message: expect.stringMatching(/--confirm-high-rate/),
    });
    await expect(set({ percent: '3.000001' })).rejects.toMatchObject({
      message: expect.not.stringMatching(/--confirm-high-amount/),
    });
    await expect(set({ amount: '6', percent: '4' })).rejects.toMatchObject({
      message: expect.stringMatching(/--confirm-high-amount.*--confirm-high-rate/),
    });
    // The limits themselves need no confirmation.
    await expect(set({ amount: '5', percent: '3' })).resolves.toMatchObject({ amount: '5', percent: '3' });
    await expect(
      set({ amount: '6', percent: '4', confirmHighAmount: true, confirmHighRate: true }),
    ).resolves.toMatchObject({ amount: '6', percent: '4' });
  });

  it('refuses assets that make no payouts with asset_not_payable', async () => {
    await expect(set({ asset: 'USDD_TRON' })).rejects.toMatchObject({ code: 'asset_not_payable' });
    await expect(set({ asset: 'FOO_TRON' })).rejects.toMatchObject({ code: 'asset_not_payable' });
  });

  it('refuses a start moment in the past and malformed values', async () => {
    await expect(set({ validFrom: '2026-03-01T09:59:59Z' })).rejects.toMatchObject({
      code: 'payout_fee_valid_from_in_past',
    });
    await expect(set({ validFrom: 'tomorrow' })).rejects.toMatchObject({ code: 'invalid_argument' });
    for (const amount of ['-1', '1.0000001', 'x'])
      await expect(set({ amount })).rejects.toMatchObject({ code: 'invalid_argument' });
    for (const percent of ['-1', '100', '1.1234567', 'x'])
      await expect(set({ percent })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('applies the schedule in force at a moment and audits each change', async () => {
    const db = h.database.db;
    await set({ asset: 'TRX_TRON', amount: '1', percent: '0' });
    const later = '2026-03-02T00:00:00.000Z';
    await set({ asset: 'TRX_TRON', amount: '2', percent: '1.5', validFrom: later });
    expect((await payoutFeeAt(db, 'TRX_TRON', clock.now().toISOString())).fixed).toBe(1_000_000n);
    expect(await payoutFeeAt(db, 'TRX_TRON', later)).toMatchObject({ fixed: 2_000_000n, percent: '1.5' });
    const schedule = await payoutFeeSchedule(db, catalog, 'TRX_TRON', clock.now().toISOString());
    expect(schedule.in_force).toMatchObject({ amount: '1', percent: '0' });
    expect(schedule.scheduled).toEqual([{ asset: 'TRX_TRON', amount: '2', percent: '1.5', valid_from: later }]);
    const audit = await listAudit(db, 'asset', 'TRX_TRON');
    expect(audit.map((a) => a.action)).toEqual(['fee.payout', 'fee.payout']);
    expect(audit[0]!.actor).toBe('cli:op');
  });

  it('computes fixed + percent of the amount, rounded up to the base unit', () => {
    const fee = { fixed: 500_000n, percent: '1', scheduleId: 1 };
    expect(payoutFeeFor(10_250_000n, fee)).toBe(602_500n);
    expect(payoutFeeFor(1n, { fixed: 0n, percent: '0.3', scheduleId: 1 })).toBe(1n);
    expect(payoutFeeFor(1000n, { fixed: 0n, percent: '0.1', scheduleId: 1 })).toBe(1n);
    expect(payoutFeeFor(1001n, { fixed: 0n, percent: '0.1', scheduleId: 1 })).toBe(2n);
    expect(payoutFeeFor(123n, { fixed: 7n, percent: '0', scheduleId: 1 })).toBe(7n);
  });
});
