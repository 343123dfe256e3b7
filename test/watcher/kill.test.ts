/**
 * SIGKILL mid-scan: a child process runs the watcher over the shared SQLite file and is killed at
 * arbitrary points of a long catch-up, then restarted (after its lease lapses). Each batch's
 * deposits and cursor commit together, so the restarted watcher resumes where the last commit
 * left off: every payment is recorded once and credited once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { setServiceFee } from '../../src/fees/service.js';
import { initWallet } from '../../src/wallet/service.js';
import { readCursor } from '../../src/watcher/store.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { api } from '../helpers/http.js';
import { expectLedgerMatchesDeposits } from '../helpers/invariants.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';

const CHILD = new URL('./kill-child.ts', import.meta.url).pathname;
let devnet: Devnet;
let t: TestApp;
const children: ChildProcess[] = [];

function startChild(): Promise<ChildProcess> {
  const env = {
    ...process.env,
    DATABASE_URL: t.app.config.databaseUrl,
    WALLET_KEYSTORE: path.join(t.dir, 'keystore.json'),
    WALLET_PASSPHRASE: TEST_PASSPHRASE,
    TRON_FULL_NODE_URL: devnet.url,
  };
  const p = spawn(process.execPath, ['--import', 'tsx', CHILD], { stdio: ['ignore', 'pipe', 'pipe'], env });
  children.push(p);
  return new Promise((resolve, reject) => {
    let err = '';
    p.stderr!.on('data', (d) => (err += String(d)));
    p.stdout!.on('data', (d) => String(d).includes('started') && resolve(p));
    p.once('exit', (code) => reject(new Error(`child exited ${code}: ${err}`)));
  });
}

const killed = (p: ChildProcess) =>
  new Promise<void>((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once('exit', () => r())));

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock: systemClock });
  t = await startTestApp({
    workers: false,
    clock: systemClock,
    env: { WALLET_PASSPHRASE: TEST_PASSPHRASE, TRON_FULL_NODE_URL: devnet.url },
  });
  await initWallet(t.app.services.db, systemClock, 'test', t.app.config, {
    mnemonic: TEST_MNEMONIC,
    scrypt: CHEAP_SCRYPT,
  });
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await t.close();
  await devnet.close();
});

describe('SIGKILL and restart mid-scan', () => {
  it('every payment recorded and credited once after repeated kills', { timeout: 180_000 }, async () => {
    const { merchant, key } = await t.merchant({ name: 'Killed shop' });
    await setServiceFee(t.app.services.db, systemClock, 'test', merchant.merchant_id, {
      percent: '1',
      payer: 'merchant',
    });
    const invoices: { invoice_id: string; address: string }[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await api(t.url, '/v1/invoices', {
        key,
        body: { order_id: `k-${i}`, asset: 'USDT_TRON', amount: '10', expires_in: 604800 },
      });
      invoices.push(r.body);
    }
    for (const inv of invoices) {
      devnet.control.pay({ to: inv.address, asset: 'USDT_TRON', amount: 10_000_000n });
      devnet.control.mine(25);
    }
    devnet.control.mine(20);
    const head = devnet.control.info().head.number;
    // The first watcher starts from about when the oldest deposit address was handed out.
    let child = await startChild();
    await vi.waitFor(async () => expect(await readCursor(t.app.services.db)).toBeDefined(), {
      timeout: 15_000,
      interval: 5,
    });
    const start = (await readCursor(t.app.services.db))!.next_block;
    expect(start).toBeLessThan(head - 12 * 25);
    for (const stop of [0.3, 0.65]) {
      if (child.exitCode !== null || child.signalCode !== null) child = await startChild();
      const target = start + Math.floor((head - start) * stop);
      await vi.waitFor(async () => expect((await readCursor(t.app.services.db))!.next_block).toBeGreaterThan(target), {
        timeout: 30_000,
        interval: 5,
      });
      child.kill('SIGKILL');
      await killed(child);
      await expectLedgerMatchesDeposits(t.app.services.db);
    }
    child = await startChild();
    await vi.waitFor(async () => expect((await readCursor(t.app.services.db))!.next_block).toBe(head + 1), {
      timeout: 60_000,
      interval: 20,
    });
    child.kill('SIGTERM');
    await killed(child);
    for (const inv of invoices) {
      const r = await api(t.url, `/v1/invoices/${inv.invoice_id}`, { key });
      expect(r.body).toMatchObject({ status: 'settled', amount_received: '10', amount_credited: '9.9' });
      expect(r.body.deposits).toHaveLength(1);
    }
    const ledger = await t.app.services.db
      .selectFrom('ledger_entries')
      .select('amount')
      .where('merchant_id', '=', merchant.merchant_id)
      .execute();
    expect(ledger.map((e) => e.amount)).toEqual(invoices.map(() => '9900000'));
    await expectLedgerMatchesDeposits(t.app.services.db, { settled: true });
  });
});
