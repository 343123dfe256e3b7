/**
 * `paygate sweep --address` and `paygate wallet show` as real child processes against a running
 * serve (wallet unlocked, worker lease held, the sweeper worker on) and a devnet.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { systemClock } from '../../src/clock.js';
import { createMerchant } from '../../src/merchants/service.js';
import { DepositKeyChain } from '../../src/wallet/hd.js';
import { initWallet } from '../../src/wallet/service.js';
import { sweeperWorker } from '../../src/sweeper/worker.js';
import { tempDir } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { MNEMONIC, recordDeposit, TRX, USDT } from './fixture.js';
import { testDatabaseUrl } from '../helpers/database.js';

let devnet: Devnet;
let app: App;
let env: Record<string, string>;
let hotAddress: string;
let a: string;
let b: string;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0 });
  const dir = tempDir();
  env = {
    DATABASE_URL: (await testDatabaseUrl(path.join(dir, 'paygate.db'))).url,
    TRON_NETWORK: 'devnet',
    TRON_FULL_NODE_URL: devnet.url,
    WALLET_KEYSTORE: path.join(dir, 'ks.json'),
    WALLET_PASSPHRASE: 'a long test passphrase',
  };
  const config = parseConfig({
    ADMIN_PORT: '0',
    CABINET_PORT: '0',
    PAY_PORT: '0',
    ...env,
    PORT: '0',
    LOG_LEVEL: 'silent',
  });
  const setup = openDatabase(config.database);
  await migrateToLatest(setup.db);
  const w = await initWallet(setup.db, systemClock, 'test', config, {
    mnemonic: MNEMONIC,
    scrypt: { N: 1024, r: 8, p: 1 },
  });
  await setup.close();
  hotAddress = w.hot_address;
  app = await buildApp(config, {
    unlockWallet: true,
    workerHost: { workers: (s, lease) => sweeperWorker(s, lease, { intervalMs: 100 }), jobs: [] },
  });
  await app.start();
  const db = app.services.db;
  const merchant = await createMerchant(db, systemClock, 'test', { name: 'Shop' });
  const keys = new DepositKeyChain(w.deposit_xpub);
  [a, b] = [keys.addressAt(0)!, keys.addressAt(1)!];
  for (const [i, address] of [a, b].entries()) {
    await db
      .insertInto('deposit_addresses')
      .values({
        address,
        derivation_index: i,
        merchant_id: merchant.merchant_id,
        external_user_id: null,
        created_at: new Date().toISOString(),
      })
      .execute();
  }
  devnet.control.fund({ address: w.hot_address, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
  // Below the 20 USDT threshold: the worker leaves both alone until the operator asks.
  await recordDeposit(db, devnet, merchant.merchant_id, a, 'USDT_TRON', 5n * USDT);
  await recordDeposit(db, devnet, merchant.merchant_id, b, 'USDT_TRON', 7n * USDT);
});

afterAll(async () => {
  await app?.stop();
  await devnet?.close();
});

/** Blocks keep coming while a command waits on the serve process's sweeps. */
async function withBlocks<T>(fn: () => Promise<T>): Promise<T> {
  const t = setInterval(() => devnet.control.mine(1), 100);
  try {
    return await fn();
  } finally {
    clearInterval(t);
  }
}

// Every CLI run is a child process compiling the sources: slow on a loaded machine.
describe('paygate sweep', { timeout: 180_000 }, () => {
  it('sweeps one address on request (threshold ignored), with progress on stderr, and leaves the others', async () => {
    const r = await withBlocks(() => runCli(['sweep', '--address', a, '--json'], env));
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.json.status).toBe('done');
    const usdt = r.json.targets.find((t: { asset: string }) => t.asset === 'USDT_TRON');
    expect(usdt).toMatchObject({
      address: a,
      state: 'done',
      sweep: { status: 'done', amount: '5', trigger: 'manual' },
    });
    expect(usdt.sweep.transactions.map((t: { step: string }) => t.step)).toEqual(['top_up', 'transfer']);
    // The TRX left from the top-up comes back too.
    expect(r.json.targets.find((t: { asset: string }) => t.asset === 'TRX_TRON').state).toBe('done');
    expect(r.stderr).toMatch(/USDT_TRON: transfer [0-9a-f]{64} confirmed/);
    expect(devnet.control.balances(a).tokens.USDT_TRON).toBe(0n);
    expect(devnet.control.balances(b).tokens.USDT_TRON).toBe(7n * USDT);
  });

  it('wallet show lists the hot wallet balances and what deposit addresses still hold', async () => {
    const r = await runCli(['wallet', 'show', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.hot_wallet).toMatchObject({
      address: hotAddress,
      tokens: { USDT_TRON: '5', USDC_TRON: '0', USDD_TRON: '0' },
    });
    expect(Number(r.json.hot_wallet.bandwidth_available)).toBeGreaterThan(0);
    expect(r.json.in_deposit_addresses).toContainEqual({ asset: 'USDT_TRON', amount: '7' });
  });

  it('refuses a bad threshold or an unknown address without changing anything', async () => {
    const bad = await runCli(
      ['asset', 'set', 'USDT_TRON', '--payouts', 'off', '--sweep-threshold', '1.2345678', '--json'],
      env,
    );
    expect(bad.json.error.code).toBe('invalid_argument');
    expect(await app.services.db.selectFrom('asset_switches').selectAll().execute()).toEqual([]); // --payouts off was not applied
    const unknown = await runCli(['sweep', '--address', 'TQHrDPLxiN4Zjhd7LLQUFDV8VssUr59ZBJ', '--json'], env);
    expect(unknown.json.error.code).toBe('invalid_argument');
    const ok = await runCli(['asset', 'set', 'USDT_TRON', '--sweep-threshold', '2.5', '--json'], env);
    expect(ok.json).toMatchObject({ asset: 'USDT_TRON', sweep_threshold: '2.5' });
  });

  it('refuses when no serve holds the worker lease (nothing would sign)', async () => {
    await app.stop();
    const r = await runCli(['sweep', '--json'], env);
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('invalid_state');
  });
});
