/**
 * The wallet through the console over real HTTP, in front of the devnet: `wallet show` (the node's
 * view of the hot wallet), the hot wallet's payout limits, and sweep requests for the running
 * serve (refused while no process holds the worker lease). Every answer is checked against the
 * served OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { WorkerLease } from '../../src/runtime/lease.js';
import { initWallet } from '../../src/wallet/service.js';
import { startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';
import { newAddress } from '../payouts/fixture.js';

let devnet: Devnet;
let t: ConsoleTestApp;

const expectError = (r: { status: number; body: any; text: string }, status: number, code: string) => {
  expect(r.status, r.text).toBe(status);
  expect(r.body.error.code, r.text).toBe(code);
};

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock: new ManualClock() });
  devnet.control.mine(3);
  t = await startConsoleApp({
    workers: false,
    env: { WALLET_PASSPHRASE: TEST_PASSPHRASE, TRON_FULL_NODE_URL: devnet.url },
  });
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

describe('wallet', () => {
  it('is 409 invalid_state before paygate init, then shows the wallet and what the node says of it', async () => {
    expectError(await t.call('/admin/v1/wallet'), 409, 'invalid_state');
    await initWallet(t.app.services.db, t.clock, 'test', t.app.config, {
      mnemonic: TEST_MNEMONIC,
      scrypt: CHEAP_SCRYPT,
    });
    const r = await t.call('/admin/v1/wallet');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      deposit_addresses_in_use: 0,
      hot_wallet: { address: r.body.hot_address, trx: expect.any(String), tokens: expect.any(Object) },
      payouts_waiting: [],
    });
    expect(r.body.deposit_xpub).toMatch(/^xpub/);
    const { token } = await t.issueToken('dashboard', { readOnly: true });
    const readOnly = await t.call('/admin/v1/wallet', { token });
    expect(readOnly.status, readOnly.text).toBe(200);
    expect(readOnly.body).toMatchObject({ hot_address: r.body.hot_address, deposit_xpub: null });
    expect(r.body.in_deposit_addresses).toContainEqual({ asset: 'USDT_TRON', amount: '0' });
  });

  it('sets the hot wallet limits of an asset; an empty body shows them; bad values change nothing', async () => {
    const set = await t.call('/admin/v1/wallet/limits/USDT_TRON', {
      method: 'PUT',
      body: { per_payout: '5000', per_day: '50000', fee_limit: '40' },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      asset: 'USDT_TRON',
      per_payout: '5000',
      per_day: '50000',
      fee_limit: '40',
      updated_by: t.tokenId,
    });
    const none = await t.call('/admin/v1/wallet/limits/USDT_TRON', { method: 'PUT', body: { per_day: 'none' } });
    expect(none.body).toMatchObject({ per_payout: '5000', per_day: null });
    const shown = await t.call('/admin/v1/wallet/limits/USDT_TRON', { method: 'PUT' });
    expect(shown.body).toMatchObject({ per_payout: '5000', per_day: null, fee_limit: '40' });
    const bad = await t.call('/admin/v1/wallet/limits/USDT_TRON', { method: 'PUT', body: { per_payout: '-3' } });
    expectError(bad, 400, 'validation_failed');
    expect(bad.body.error.details[0].path).toBe('body.per_payout');
    const cap = await t.call('/admin/v1/wallet/limits/USDT_TRON', { method: 'PUT', body: { fee_limit: '20000' } });
    expect(cap.body.error.details[0].path).toBe('body.fee_limit');
    expectError(
      await t.call('/admin/v1/wallet/limits/NOPE_TRON', { method: 'PUT', body: { per_day: '1' } }),
      404,
      'asset_not_found',
    );
  });
});

describe('sweeps', () => {
  it('is refused while no serve holds the worker lease, then recorded for the one that does (202)', async () => {
    expectError(await t.call('/admin/v1/sweeps', { body: {} }), 409, 'invalid_state');
    const lease = new WorkerLease(t.app.services.db, t.clock, { ttlMs: 3_650 * 86_400_000 });
    await lease.acquireOrRenew();
    const all = await t.call('/admin/v1/sweeps', { method: 'POST' });
    expect(all.status, all.text).toBe(202);
    expect(all.body).toMatchObject({ request_id: expect.stringMatching(/^swr_/), status: 'pending', address: null });
    const notOurs = await t.call('/admin/v1/sweeps', { body: { address: newAddress() } });
    expectError(notOurs, 400, 'validation_failed');
    expect(notOurs.body.error.details[0]).toMatchObject({ path: 'body.address', message: /not a deposit address/ });
    const malformed = await t.call('/admin/v1/sweeps', { body: { address: 'T123' } });
    expect(malformed.body.error.details[0]).toMatchObject({ path: 'body.address' });
    const audit = await t.app.services.db
      .selectFrom('audit_log')
      .select('actor')
      .where('action', '=', 'sweep.request')
      .execute();
    expect(audit).toEqual([{ actor: t.tokenId }]);
  });
});
