/** `paygate devnet pay`: a customer payment through the devnet's control API. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { payOnDevnet } from '../../src/devnet/pay.js';

let devnet: Devnet;
const to = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock: new ManualClock() });
});
afterAll(() => devnet.close());

describe('payOnDevnet', () => {
  it('pays whole units of the asset with its decimals, signed by a funded account', async () => {
    const r = await payOnDevnet({ url: devnet.url, to, asset: 'USDT_TRON', amount: '12.5', from: 1, mine: true });
    expect(r).toMatchObject({
      to,
      asset: 'USDT_TRON',
      amount: '12.5',
      base_units: '12500000',
      from: devnet.accounts[1]!.address,
    });
    expect(r.txid).toMatch(/^[0-9a-f]{64}$/);
    expect(devnet.control.balances(to).tokens.USDT_TRON).toBe(12_500_000n);
  });

  it('refuses bad input before sending anything, and says when the devnet is not there', async () => {
    const base = { url: devnet.url, to, asset: 'USDT_TRON', amount: '1', from: 0, mine: false };
    await expect(payOnDevnet({ ...base, to: 'Tnot-an-address' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(payOnDevnet({ ...base, amount: '1.0000001' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(payOnDevnet({ ...base, asset: 'FOO_TRON' })).rejects.toMatchObject({ code: 'asset_not_found' });
    await expect(payOnDevnet({ ...base, url: 'http://127.0.0.1:1' })).rejects.toMatchObject({
      code: 'service_unavailable',
    });
  });
});
