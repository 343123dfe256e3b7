/**
 * Restore never pays twice. A backup shows two payouts waiting; after the backup one of them is
 * sent. The backup is restored: the payout worker and the sweeper stay halted until
 * `payout resume --worker`, and each payout the backup shows not final is held (shown with its
 * reason in `payout list`). The watcher reads the chain since the backup: the one sent is
 * confirmed with the txid found on chain, the other shows no transfer out and waits for the
 * operator's `payout approve`. The chain shows each sent exactly once.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { Devnet } from '../../src/devnet/index.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { changeMerchant } from '../../src/merchants/service.js';
import { backupDatabase } from '../../src/restore/backup.js';
import { listHalts } from '../../src/payouts/halts.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { createPayoutWorker } from '../../src/payouts/worker/worker.js';
import type { WorkerLease } from '../../src/runtime/lease.js';
import type { WorkerServices } from '../../src/services.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { startTestApp, tempDir, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { ledgerProblems, startTestDevnet, successfulTransfersTo, workerAppOptions } from '../payouts/worker-fixture.js';
import { describeSqliteOnly } from '../helpers/database.js';

let devnet: Devnet;
let options: TestAppOptions;
let hot: string;
const dir = tempDir('paygate-restore-');
// A small derivation gap: the full one derives tens of thousands of addresses (restore-gap.test.ts).
const env = { DATABASE_URL: path.join(dir, 'paygate.db'), TRON_NETWORK: 'devnet', PAYGATE_TEST_RESTORE_GAP: '20' };
const apps: TestApp[] = [];

beforeAll(async () => {
  devnet = await startTestDevnet();
  const w = await workerAppOptions(devnet);
  hot = w.hotAddress;
  // A short lease: the restored backup names the first process as holder until it lapses.
  options = {
    ...w.options,
    env: { ...w.options.env, ...env },
    workerHost: {
      ...w.options.workerHost,
      ttlMs: 1_000,
      workers: (s: WorkerServices, lease: WorkerLease) => [
        chainWatcher(s, lease, { intervalMs: 30 }),
        createPayoutWorker(s, lease, { intervalMs: 30 }),
      ],
    },
  };
});
afterAll(async () => {
  for (const a of apps) await a.close();
  await devnet?.close();
});

async function start(): Promise<TestApp> {
  const t = await startTestApp(options);
  apps.push(t);
  return t;
}

describeSqliteOnly('paygate restore replaces a SQLite file')('paygate restore', () => {
  it('halts payouts and sweeps, holds the payouts not final, settles them from the chain, and never pays one twice', async () => {
    const first = await start();
    const db = first.app.services.db;
    const catalog = first.app.services.catalog;
    const row = (t: TestApp, id: string) =>
      t.app.services.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const shop = async (disabled: boolean) => {
      const { merchant, key } = await first.merchant();
      await creditMerchant(db, first.clock, 'test', catalog, merchant.merchant_id, {
        asset: 'USDT_TRON',
        amount: '100',
        memo: 'opening balance',
      });
      const to = newAddress();
      await addToWhitelist(db, first.clock, 'test', catalog, merchant.merchant_id, {
        asset: 'USDT_TRON',
        address: to,
        delay: '0',
      });
      const r = await api(first.url, '/v1/payouts', {
        key,
        body: { reference: `r-${Math.random()}`, asset: 'USDT_TRON', to_address: to, amount: '10' },
      });
      expect(r.status).toBe(202);
      expect(r.body.status).toBe('pending_review');
      if (disabled) await changeMerchant(db, first.clock, 'test', merchant.merchant_id, 'disable');
      await approvePayout(db, first.clock, 'test', r.body.payout_id);
      return { merchantId: merchant.merchant_id, to, id: r.body.payout_id as string };
    };
    // Queued, waiting for a funded hot wallet; approved, waiting for its merchant to be enabled.
    const sent = await shop(false);
    const unsent = await shop(true);
    await vi.waitFor(async () => expect((await row(first, sent.id)).wait_reason).toMatch(/short of USDT_TRON/), {
      timeout: 10_000,
    });
    await vi.waitFor(async () => expect((await row(first, unsent.id)).wait_reason).toMatch(/merchant disabled/), {
      timeout: 10_000,
    });
    const backup = path.join(tempDir(), 'before.db');
    await backupDatabase(env.DATABASE_URL, backup);

    // After the backup the queued payout goes out.
    devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 5_000_000_000n, mine: true });
    devnet.control.fund({ address: hot, asset: 'USDT_TRON', amount: 1_000_000_000n, mine: true });
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        expect((await row(first, sent.id)).status).toBe('confirmed');
      },
      { timeout: 15_000, interval: 50 },
    );
    expect(successfulTransfersTo(devnet, hot, sent.to)).toHaveLength(1);
    await first.app.stop();

    const restored = await runCli(['restore', backup, '--json'], env);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.json).toMatchObject({ worker_halted: true, payouts_held: 2 });
    const list = await runCli(['payout', 'list', '--json'], env);
    const listed = new Map(
      (list.json.data as { payout_id: string; status: string; hold_reason: string | null }[]).map((p) => [
        p.payout_id,
        p,
      ]),
    );
    expect(listed.get(sent.id)).toMatchObject({
      status: 'queued',
      hold_reason: expect.stringMatching(
        /restored from a backup.*chain since the backup is being read.*payout approve/,
      ),
    });
    expect(listed.get(unsent.id)).toMatchObject({
      status: 'approved',
      hold_reason: expect.stringMatching(/restored from a backup/),
    });

    const second = await start();
    const db2 = second.app.services.db;
    // The hold after a restore stops the worker, not the requests.
    expect(await listHalts(db2)).toMatchObject([{ scope: '*', requests_halted: false, worker_halted: true }]);
    // The worker runs and signs nothing: halted, then, once resumed, held.
    await vi.waitFor(async () => expect((await row(second, sent.id)).wait_reason).toMatch(/halted/), {
      timeout: 10_000,
    });
    const resumed = await runCli(['payout', 'resume', '--worker', '--json'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    // The chain since the backup: the queued payout was sent (one transfer out with its asset,
    // address and amount) and is confirmed with that txid; the other shows none and stays held.
    const sentTx = successfulTransfersTo(devnet, hot, sent.to)[0]?.txid;
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        expect(await row(second, sent.id)).toMatchObject({ status: 'confirmed', tx_hash: sentTx, hold_reason: null });
      },
      { timeout: 20_000, interval: 50 },
    );
    await changeMerchant(db2, second.clock, 'test', unsent.merchantId, 'enable');
    expect(await row(second, unsent.id)).toMatchObject({
      status: 'approved',
      hold_reason: expect.stringMatching(/no transfer out of the hot wallet that matches it/),
    });
    const unknown = await runCli(['payout', 'list', '--unknown-on-chain', '--json'], env);
    expect(unknown.json).toMatchObject({ reading: 'done', payouts: [{ payout_id: unsent.id, candidates: [] }] });
    expect(successfulTransfersTo(devnet, hot, sent.to)).toHaveLength(1);

    // The operator approves the one the chain shows unsent: it goes out once.
    const approve = await runCli(['payout', 'approve', unsent.id, '--json'], env);
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.json).toMatchObject({ status: 'approved', hold_reason: null });
    second.app.workers?.wake('payouts');
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        expect((await row(second, unsent.id)).status).toBe('confirmed');
      },
      { timeout: 15_000, interval: 50 },
    );
    expect(successfulTransfersTo(devnet, hot, unsent.to)).toHaveLength(1);
    expect(successfulTransfersTo(devnet, hot, sent.to)).toHaveLength(1);
    expect(await ledgerProblems(db2)).toEqual([]);
  });
});
