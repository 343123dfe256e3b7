/**
 * A restore never pays twice, because the chain says which payouts were sent. A 10 USDT payout is
 * in pending_review when the backup is taken; after it the payout is approved, sent and confirmed.
 * The backup is restored (SQLite: `paygate restore <file>`; PostgreSQL: pg_dump, pg_restore and
 * `paygate restore --in-place`): the payout is held, `payout approve` answers invalid_state while
 * the chain since the backup is read, and payout requests are accepted (202) during the hold.
 * serve's watcher reads the chain from the backup's height, finds the one transfer out of the hot
 * wallet with the payout's asset, address and amount, and confirms the payout with that txid. After
 * `payout resume --worker` and `payout approve`, the recipient still holds 10, not 20.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Devnet } from '../../src/devnet/index.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { backupDatabase } from '../../src/restore/backup.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { createPayoutWorker } from '../../src/payouts/worker/worker.js';
import type { WorkerLease } from '../../src/runtime/lease.js';
import type { WorkerServices } from '../../src/services.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { startTestApp, tempDir, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { createPostgresDatabase, ON_POSTGRES, type TestPostgres } from '../helpers/database.js';
import { api } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { ledgerProblems, startTestDevnet, successfulTransfersTo, workerAppOptions } from '../payouts/worker-fixture.js';

let devnet: Devnet;
let options: TestAppOptions;
let hot: string;
const dir = tempDir('paygate-restore-chain-');
const apps: TestApp[] = [];
const databases: TestPostgres[] = [];
const TEN = 10_000_000n;

beforeAll(async () => {
  devnet = await startTestDevnet();
  const w = await workerAppOptions(devnet);
  hot = w.hotAddress;
  options = {
    ...w.options,
    workerHost: {
      ...w.options.workerHost,
      // A short lease: the restored backup names the first process as holder until it lapses.
      ttlMs: 1_000,
      workers: (s: WorkerServices, lease: WorkerLease) => [
        chainWatcher(s, lease, { intervalMs: 30 }),
        createPayoutWorker(s, lease, { intervalMs: 30 }),
      ],
    },
  };
});
afterAll(async () => {
  for (const a of apps) await a.app.stop();
  for (const d of databases) await d.drop();
  await devnet?.close();
});

async function start(url: string): Promise<TestApp> {
  const t = await startTestApp({ ...options, env: { ...options.env, DATABASE_URL: url } });
  apps.push(t);
  return t;
}

/** A new database: SQLite, a file the app creates; PostgreSQL, migrated, or empty for pg_restore. */
async function database(migrated = true): Promise<string> {
  if (!ON_POSTGRES) return path.join(dir, `paygate-${Date.now()}.db`);
  const d = await createPostgresDatabase({ migrated });
  databases.push(d);
  return d.url;
}

const cliEnv = (url: string) => ({ DATABASE_URL: url, TRON_NETWORK: 'devnet', PAYGATE_TEST_RESTORE_GAP: '20' });

describe('a restore and the chain since the backup', () => {
  it('confirms a payout sent after the backup with the txid found on chain, and never sends it again', async () => {
    const url = await database();
    const first = await start(url);
    const db = first.app.services.db;
    const row = (t: TestApp, id: string) =>
      t.app.services.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 5_000_000_000n, mine: true });
    devnet.control.fund({ address: hot, asset: 'USDT_TRON', amount: 1_000_000_000n, mine: true });
    const { merchant, key } = await first.merchant();
    const catalog = first.app.services.catalog;
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
    const created = await api(first.url, '/v1/payouts', {
      key,
      body: { reference: 'ten', asset: 'USDT_TRON', to_address: to, amount: '10' },
    });
    expect(created.status).toBe(202);
    expect(created.body.status).toBe('pending_review');
    const id = created.body.payout_id as string;
    // The backup knows where the watcher stands (its cursor) and the payout in review.
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        expect(await db.selectFrom('chain_cursor').select('next_block').executeTakeFirst()).toBeDefined();
      },
      { timeout: 15_000, interval: 50 },
    );
    const backup = path.join(dir, `backup-${Date.now()}`);
    if (ON_POSTGRES) execFileSync('pg_dump', ['--format=custom', `--file=${backup}`, url]);
    else await backupDatabase(url, backup);

    // After the backup: approved, sent, confirmed; the watcher knows the transfer out as this payout's.
    await approvePayout(db, first.clock, 'test', id);
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        expect((await row(first, id)).status).toBe('confirmed');
      },
      { timeout: 20_000, interval: 50 },
    );
    const sentTx = (await row(first, id)).tx_hash as string;
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        const seen = await db.selectFrom('hot_wallet_transfers').selectAll().where('tx_hash', '=', sentTx).execute();
        expect(seen).toMatchObject([{ kind: 'payout', payout_id: id, amount: TEN.toString(), to_address: to }]);
      },
      { timeout: 15_000, interval: 50 },
    );
    expect(await db.selectFrom('hot_wallet_transfers').select('kind').where('kind', '=', 'unknown').execute()).toEqual(
      [],
    );
    expect(devnet.control.balances(to).tokens.USDT_TRON).toBe(TEN);
    await first.app.stop();

    // The restore: the payout in review is held, approving it waits for the chain reading.
    let restoredUrl = url;
    let restored;
    if (ON_POSTGRES) {
      restoredUrl = await database(false);
      execFileSync('pg_restore', ['--no-owner', `--dbname=${restoredUrl}`, backup]);
      restored = await runCli(['restore', '--in-place', '--json'], cliEnv(restoredUrl));
    } else {
      restored = await runCli(['restore', backup, '--json'], cliEnv(url));
    }
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.json).toMatchObject({
      worker_halted: true,
      payouts_held: 1,
      held_payouts: [{ payout_id: id, status: 'pending_review', asset: 'USDT_TRON', amount: '10', to_address: to }],
    });
    const early = await runCli(['payout', 'approve', id, '--json'], cliEnv(restoredUrl));
    expect(early.code).toBe(1);
    expect(early.json.error).toMatchObject({
      code: 'invalid_state',
      message: expect.stringMatching(/still being read/),
    });
    const listed = await runCli(['payout', 'list', '--unknown-on-chain', '--json'], cliEnv(restoredUrl));
    expect(listed.json).toMatchObject({
      reading: 'in_progress',
      payouts: [{ payout_id: id, status: 'pending_review' }],
    });

    const second = await start(restoredUrl);
    // During the hold after a restore, payout requests are accepted and wait.
    const during = await api(second.url, '/v1/payouts', {
      key,
      body: { reference: 'during-the-hold', asset: 'USDT_TRON', to_address: to, amount: '1' },
    });
    expect(during.status, JSON.stringify(during.body)).toBe(202);
    // It may be a request the restore lost, sent again: held and matched against the chain too.
    expect((await row(second, during.body.payout_id as string)).hold_reason).toMatch(/being read/);
    // Neither cancelling nor rejecting a held payout releases its money before the reading ends.
    for (const verb of ['cancel', 'reject']) {
      const refused = await runCli(['payout', verb, id, '--reason', 'not needed', '--json'], cliEnv(restoredUrl));
      expect(refused.code).toBe(1);
      expect(refused.json.error).toMatchObject({ code: 'invalid_state', message: expect.stringMatching(/being read/) });
    }

    // The watcher reads the chain since the backup: the one transfer out with the payout's asset,
    // address and amount is its, and the payout is confirmed with that txid.
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        expect(await row(second, id)).toMatchObject({ status: 'confirmed', tx_hash: sentTx, hold_reason: null });
      },
      { timeout: 30_000, interval: 50 },
    );
    const after = await runCli(['payout', 'list', '--unknown-on-chain', '--json'], cliEnv(restoredUrl));
    // What is left for the operator: the request made during the hold, which nothing on chain paid.
    expect(after.json).toMatchObject({
      reading: 'done',
      payouts: [{ payout_id: during.body.payout_id, candidates: [] }],
      unknown_transfers: [],
    });
    expect(
      await second.app.services.db
        .selectFrom('hot_wallet_transfers')
        .selectAll()
        .where('tx_hash', '=', sentTx)
        .execute(),
    ).toMatchObject([{ kind: 'restore_match', payout_id: id }]);

    // The operator resumes and approves: nothing is sent again.
    const resumed = await runCli(['payout', 'resume', '--worker', '--json'], cliEnv(restoredUrl));
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = await runCli(['payout', 'approve', id, '--json'], cliEnv(restoredUrl));
    expect(again.code).toBe(1);
    expect(again.json.error.code).toBe('invalid_state');
    // The request accepted during the hold is sent once approved; the recipient ends with 10 + 1.
    const later = during.body.payout_id as string;
    const approveLater = await runCli(['payout', 'approve', later, '--json'], cliEnv(restoredUrl));
    expect(approveLater.code, approveLater.stderr).toBe(0);
    second.app.workers?.wake('payouts');
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        expect((await row(second, later)).status).toBe('confirmed');
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(successfulTransfersTo(devnet, hot, to).map((t) => t.amount)).toEqual([TEN, 1_000_000n]);
    expect(devnet.control.balances(to).tokens.USDT_TRON).toBe(TEN + 1_000_000n);
    expect(await ledgerProblems(second.app.services.db)).toEqual([]);
    await second.app.stop();
  });
});
