/**
 * Restore never hands an address to two users. After a backup, merchant A's user gets a permanent
 * address. The backup is restored: the derivation index is raised past the recorded gap, so the
 * next addresses (merchant B's invoice, A's user asking again) are past it, never one handed out
 * before the restore. A payment to A's lost address, now in the gap, is an unattributed deposit:
 * listed by `paygate deposit list --unattributed`, credited to no merchant, attached to no invoice.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { TronClient } from '../../src/chain/client.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { ManualClock } from '../../src/clock.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { backupDatabase } from '../../src/restore/backup.js';
import { DepositKeyChain } from '../../src/wallet/hd.js';
import { initWallet } from '../../src/wallet/service.js';
import { findWallet } from '../../src/wallet/store.js';
import { readCursor } from '../../src/watcher/store.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { api, permanentAddress } from '../helpers/http.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';
import { describeSqliteOnly } from '../helpers/database.js';

const GAP = 50;
const clock = new ManualClock(new Date(Math.floor(Date.now() / 3000) * 3000));
const dir = tempDir('paygate-restore-gap-');
const databasePath = path.join(dir, 'paygate.db');
const cliEnv = { DATABASE_URL: databasePath, TRON_NETWORK: 'devnet', PAYGATE_TEST_RESTORE_GAP: String(GAP) };
let devnet: Devnet;
let chain: TronClient;
const apps: TestApp[] = [];

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock });
  chain = createTronClient({ fullHost: devnet.url, timeoutMs: 500, retries: 1, backoffMs: 5, maxBackoffMs: 20 });
});
afterAll(async () => {
  for (const a of apps) await a.close();
  await devnet?.close();
});

async function start(): Promise<TestApp> {
  const t = await startTestApp({
    clock,
    chain,
    workerHost: {
      ttlMs: 1_000,
      renewMs: 50,
      maxBackoffMs: 100,
      jobs: [],
      workers: (s, lease) => [chainWatcher(s, lease, { intervalMs: 10 })],
    },
    env: {
      ...cliEnv,
      WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
      WALLET_PASSPHRASE: TEST_PASSPHRASE,
      TRON_FULL_NODE_URL: devnet.url,
    },
  });
  apps.push(t);
  return t;
}

const userAddress = (t: TestApp, key: string, user: string) => permanentAddress(t.url, key, user);

describeSqliteOnly('paygate restore replaces a SQLite file')('paygate restore and deposit addresses', () => {
  it('hands out addresses past the gap after a restore, and a payment into the gap credits no one', async () => {
    const first = await start();
    await initWallet(first.app.services.db, clock, 'test', first.app.config, {
      mnemonic: TEST_MNEMONIC,
      scrypt: CHEAP_SCRYPT,
    });
    const a = await first.merchant({ name: 'Shop A', addressMode: 'per_user' });
    const alice = await userAddress(first, a.key, 'alice');
    const backup = path.join(tempDir(), 'before.db');
    await backupDatabase(databasePath, backup);
    // After the backup: A's user gets a permanent address the backup does not know.
    const bob = await userAddress(first, a.key, 'bob');
    await first.close();

    const restored = await runCli(['restore', backup, '--json'], cliEnv);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.json.derivation_gap).toEqual({
      from_index: 1,
      to_index: GAP,
      addresses: GAP,
      watched_to_index: GAP,
    });

    clock.advance(5_000); // the backup's worker lease lapses
    const second = await start();
    const db = second.app.services.db;
    const wallet = await findWallet(db);
    const keys = new DepositKeyChain(wallet!.deposit_xpub);
    expect(keys.addressAt(1)).toBe(bob);
    // The next addresses handed out are past the gap: never alice's, never bob's.
    const b = await second.merchant({ name: 'Shop B' });
    const invoice = await api(second.url, '/v1/invoices', {
      key: b.key,
      body: { order_id: 'after-restore', asset: 'USDT_TRON', amount: '12.5', expires_in: 3600 },
    });
    expect(invoice.status, JSON.stringify(invoice.body)).toBe(201);
    const again = await userAddress(second, a.key, 'bob');
    expect([invoice.body.address, again]).toEqual([keys.addressAt(GAP + 1), keys.addressAt(GAP + 2)]);
    expect([alice, bob]).not.toContain(invoice.body.address);
    expect([alice, bob]).not.toContain(again);
    expect(await userAddress(second, a.key, 'alice')).toBe(alice);

    // Bob's customer pays the address bob had before the restore.
    const txid = devnet.control.pay({ to: bob, asset: 'USDT_TRON', amount: 12_500_000n, from: 0 }).txid;
    for (let i = 0; i < 3; i++) {
      clock.advance(3_000);
      devnet.control.mine(1);
    }
    second.app.workers?.wake('chain-watcher');
    const head = devnet.control.info().head.number;
    await vi.waitFor(async () => expect((await readCursor(db))?.next_block).toBe(head + 1), {
      timeout: 15_000,
      interval: 10,
    });

    const listed = await runCli(['deposit', 'list', '--unattributed', '--json'], cliEnv);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json).toEqual({
      data: [
        expect.objectContaining({
          address: bob,
          derivation_index: 1,
          asset: 'USDT_TRON',
          amount: '12.5',
          tx_hash: txid,
        }),
      ],
      next_cursor: null,
    });
    const human = await runCli(['deposit', 'list', '--unattributed'], cliEnv);
    expect(human.stdout).toContain(bob);

    // Credited to no merchant, attached to no invoice, announced to no one.
    expect(await db.selectFrom('deposits').selectAll().execute()).toEqual([]);
    expect(await db.selectFrom('ledger_entries').selectAll().execute()).toEqual([]);
    expect((await api(second.url, `/v1/invoices/${invoice.body.invoice_id}`, { key: b.key })).body.status).toBe(
      'created',
    );
    const events = await db.selectFrom('events').select('type').execute();
    expect(events.filter((e) => /deposit|paid/.test(e.type))).toEqual([]);

    const bare = await runCli(['deposit', 'list', '--json'], cliEnv);
    expect(bare.code).not.toBe(0);
    expect(bare.json.error.code).toBe('invalid_argument');
  });
});
