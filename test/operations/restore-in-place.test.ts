/**
 * `paygate restore --in-place` after a PostgreSQL restore by the server's own tools: a `pg_dump`
 * taken while a payout waits and a user has an address, a second user's address handed out after
 * the dump, then `pg_restore` into a new database. The command leaves the restored database as
 * `restore` leaves a SQLite copy: the payout worker halted (requests still accepted), the
 * unfinished payout held, and the deposit
 * index raised past a gap, so the address handed out after the dump is never handed out again.
 * It refuses while a serve holds the worker lease, and wants a backup file or --in-place, not both.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditMerchant } from '../../src/ledger/operator.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { initWallet } from '../../src/wallet/service.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { startTestApp, tempDir, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { createPostgresDatabase, type TestPostgres } from '../helpers/database.js';
import { api, permanentAddress } from '../helpers/http.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';
import { newAddress } from '../payouts/fixture.js';

const GAP = 20;
const dir = tempDir('paygate-restore-in-place-');
const databases: TestPostgres[] = [];
const apps: TestApp[] = [];

async function database(): Promise<TestPostgres> {
  const d = await createPostgresDatabase();
  databases.push(d);
  return d;
}

async function start(url: string, opts: TestAppOptions = {}): Promise<TestApp> {
  const t = await startTestApp({
    workers: false,
    ...opts,
    env: {
      DATABASE_URL: url,
      WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
      WALLET_PASSPHRASE: TEST_PASSPHRASE,
    },
  });
  apps.push(t);
  return t;
}

const userAddress = (t: TestApp, key: string, user: string) => permanentAddress(t.url, key, user);

const cli = (args: string[], url: string) =>
  runCli([...args, '--json'], { DATABASE_URL: url, TRON_NETWORK: 'devnet', PAYGATE_TEST_RESTORE_GAP: String(GAP) });

describe('paygate restore --in-place (a database restored by PostgreSQL tools)', () => {
  let restored: TestPostgres;
  let key: string;
  let payoutId: string;
  let lost: string;
  let to: string;

  beforeAll(async () => {
    const source = await database();
    const t = await start(source.url);
    const db = t.app.services.db;
    await initWallet(db, t.clock, 'test', t.app.config, { mnemonic: TEST_MNEMONIC, scrypt: CHEAP_SCRYPT });
    const shop = await t.merchant({ name: 'Shop', addressMode: 'per_user' });
    key = shop.key;
    const merchantId = shop.merchant.merchant_id;
    await userAddress(t, key, 'alice');
    // A payout approved, waiting for the payout worker (which does not run here).
    const catalog = t.app.services.catalog;
    await creditMerchant(db, t.clock, 'test', catalog, merchantId, {
      asset: 'USDT_TRON',
      amount: '100',
      memo: 'float',
    });
    to = newAddress();
    await addToWhitelist(db, t.clock, 'test', catalog, merchantId, { asset: 'USDT_TRON', address: to, delay: '0' });
    const p = await api(t.url, '/v1/payouts', {
      key,
      body: { reference: 'before-the-dump', asset: 'USDT_TRON', to_address: to, amount: '10' },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(202);
    payoutId = p.body.payout_id as string;
    await approvePayout(db, t.clock, 'test', payoutId);

    const dump = path.join(dir, 'paygate.dump');
    execFileSync('pg_dump', ['--format=custom', `--file=${dump}`, source.url]);
    // After the dump: another user's permanent address, which the dump does not know.
    lost = await userAddress(t, key, 'bob');
    await t.app.stop();

    restored = await database();
    execFileSync('pg_restore', ['--no-owner', `--dbname=${restored.url}`, dump]);
  });

  afterAll(async () => {
    for (const a of apps) await a.app.stop();
    for (const d of databases) await d.drop();
  });

  it('wants a backup file or --in-place, not both and not neither', async () => {
    for (const args of [['restore'], ['restore', path.join(dir, 'x.db'), '--in-place']]) {
      const r = await cli(args, restored.url);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.json.error.code).toBe('invalid_argument');
      expect(r.json.error.message).toMatch(/--in-place/);
    }
  });

  it('halts payouts, holds the unfinished one and skips the indexes handed out after the dump', async () => {
    const r = await cli(['restore', '--in-place'], restored.url);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The dump had handed out one index (alice's); bob's, the second, is inside the gap.
    expect(r.json).toMatchObject({
      worker_halted: true,
      payouts_held: 1,
      derivation_gap: { from_index: 1, to_index: GAP, addresses: GAP, watched_to_index: GAP },
    });

    const list = await cli(['payout', 'list'], restored.url);
    const payout = (list.json.data as { payout_id: string; status: string; hold_reason: string | null }[]).find(
      (x) => x.payout_id === payoutId,
    );
    expect(payout).toMatchObject({ status: 'approved', hold_reason: expect.stringMatching(/restored from a backup/) });

    const t = await start(restored.url);
    // Bob asks again and gets an address past the gap, never the one handed out after the dump;
    // alice keeps hers.
    const again = await userAddress(t, key, 'bob');
    expect(again).not.toBe(lost);
    expect(await userAddress(t, key, 'carol')).not.toBe(lost);
    // The hold after a restore stops the worker, not the requests: they are accepted and wait.
    const during = await api(t.url, '/v1/payouts', {
      key,
      body: { reference: 'after-the-restore', asset: 'USDT_TRON', to_address: to, amount: '1' },
    });
    expect(during.status, JSON.stringify(during.body)).toBe(202);
    await t.app.stop();
  });

  it('refuses while a serve on the database holds the worker lease', async () => {
    const t = await start(restored.url, {
      workers: true,
      workerHost: { ttlMs: 60_000, renewMs: 1_000, jobs: [], workers: () => [] },
    });
    try {
      await expect.poll(() => t.app.workers?.active(), { timeout: 10_000 }).toBe(true);
      const r = await cli(['restore', '--in-place'], restored.url);
      expect(r.code).toBe(1);
      expect(r.json.error.code).toBe('invalid_state');
      expect(r.json.error.message).toMatch(/worker lease is held by/);
    } finally {
      await t.app.stop();
    }
  });
});
