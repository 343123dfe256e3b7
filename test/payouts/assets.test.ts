/** Which assets payouts can be made in: catalog (asset_not_payable) versus operator switch (asset_payouts_disabled). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/assets/catalog.js';
import { setAssetFlags } from '../../src/assets/service.js';
import { ManualClock } from '../../src/clock.js';
import { assertPayoutAsset, assertPayoutsSwitchedOn } from '../../src/payouts/assets.js';
import { openTempDb } from './fixture.js';

const entry = (code: string, over: Record<string, unknown>) => ({
  code,
  symbol: code.split('_')[0],
  name: code,
  type: 'native',
  contract: null,
  decimals: 6,
  minimum_deposit: '1',
  payments: true,
  payouts: true,
  receive_only: false,
  locked: [],
  ...over,
});

const catalog = parseCatalog('devnet', {
  network: 'devnet',
  assets: [
    entry('OPEN_TRON', {}),
    entry('LOCKEDOFF_TRON', { payouts: false, locked: ['payouts'] }),
    entry('DEFAULTOFF_TRON', { payouts: false }),
    entry('RECV_TRON', { payouts: false, receive_only: true, locked: ['payouts'] }),
  ],
});

describe('payout assets', () => {
  let h: Awaited<ReturnType<typeof openTempDb>>;
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  beforeAll(async () => {
    h = await openTempDb();
  });
  afterAll(() => h.close());

  it('refuses unknown, receive-only and locked-off assets as not payable, saying why', () => {
    expect(() => assertPayoutAsset(catalog, 'NOPE_TRON')).toThrow(
      expect.objectContaining({ code: 'asset_not_payable', message: expect.stringMatching(/not in the catalog/) }),
    );
    expect(() => assertPayoutAsset(catalog, 'RECV_TRON')).toThrow(
      expect.objectContaining({ code: 'asset_not_payable', message: expect.stringMatching(/receive-only/) }),
    );
    expect(() => assertPayoutAsset(catalog, 'LOCKEDOFF_TRON')).toThrow(
      expect.objectContaining({ code: 'asset_not_payable', message: expect.stringMatching(/disabled in the catalog/) }),
    );
    expect(assertPayoutAsset(catalog, 'OPEN_TRON').code).toBe('OPEN_TRON');
    expect(assertPayoutAsset(catalog, 'DEFAULTOFF_TRON').code).toBe('DEFAULTOFF_TRON');
  });

  it('treats an unlocked asset that is off (by default or by the operator) as temporarily disabled', async () => {
    const db = h.database.db;
    const open = assertPayoutAsset(catalog, 'OPEN_TRON');
    const defaultOff = assertPayoutAsset(catalog, 'DEFAULTOFF_TRON');
    await expect(assertPayoutsSwitchedOn(db, open)).resolves.toBeUndefined();
    await expect(assertPayoutsSwitchedOn(db, defaultOff)).rejects.toMatchObject({ code: 'asset_payouts_disabled' });
    await setAssetFlags(db, clock, 'op', catalog, 'DEFAULTOFF_TRON', { payouts: true });
    await expect(assertPayoutsSwitchedOn(db, defaultOff)).resolves.toBeUndefined();
    await setAssetFlags(db, clock, 'op', catalog, 'OPEN_TRON', { payouts: false });
    await expect(assertPayoutsSwitchedOn(db, open)).rejects.toMatchObject({
      code: 'asset_payouts_disabled',
      message: expect.stringMatching(/same reference/),
    });
  });
});
