/**
 * The real app over HTTP with the chain watcher running against a devnet with manual block
 * production, sharing one manual clock (block times and expiry follow it). Helpers pay, mine,
 * wait for the watcher to catch up and read invoices over the API.
 */
import { expect, vi } from 'vitest';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { ManualClock } from '../../src/clock.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { setServiceFee } from '../../src/fees/service.js';
import { balance } from '../../src/ledger/service.js';
import { updateMerchantSettings } from '../../src/merchants/service.js';
import { initWallet } from '../../src/wallet/service.js';
import { readCursor, scannedBlock } from '../../src/watcher/store.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { eventsOf } from '../../src/webhooks/outbox.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { api } from '../helpers/http.js';
import { expectLedgerMatchesDeposits } from '../helpers/invariants.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';

export const UNITS = 1_000_000n;

export interface ChainTestApp extends TestApp {
  clock: ManualClock;
  devnet: Devnet;
  /** Mines blocks (3 s of the clock each) and waits until the watcher has scanned them. */
  mine(n?: number): Promise<void>;
  synced(): Promise<void>;
  pay(to: string, amount: string | bigint, asset?: string, from?: number): Promise<string>;
  invoice(key: string, id: string): Promise<any>;
  create(key: string, body: Record<string, unknown>): Promise<any>;
  shop(opts?: {
    feePercent?: string;
    confirmations?: number;
    addressMode?: 'per_invoice' | 'per_user';
  }): Promise<{ id: string; key: string }>;
  balanceOf(merchantId: string, asset?: string): Promise<bigint>;
  events(merchantId: string): Promise<{ type: string; data: any; subject_id: string; dedupe_key: string | null }[]>;
  check(settled?: boolean): Promise<void>;
}

/** Mines blocks, 3 s of the shared clock each, without waiting for a watcher (tests that drive their own with tick()). */
export function mineUnwatched(t: ChainTestApp, n: number): void {
  for (let i = 0; i < n; i++) {
    t.clock.advance(3_000);
    t.devnet.control.mine(1);
  }
}

/** `watcher: false`: no watcher runs in the app (a test drives its own with tick()); mine() and synced() then wait in vain. */
export async function startChainApp(
  opts: { nodeTimeoutMs?: number; env?: Record<string, string>; history?: number; watcher?: boolean } = {},
): Promise<ChainTestApp> {
  const clock = new ManualClock(new Date(Math.floor(Date.now() / 3000) * 3000));
  const devnet = await startDevnet({ blockTimeMs: 0, clock });
  // Blocks the node has before the watcher's first look (its first scan starts at the head).
  if (opts.history) devnet.control.mine(opts.history);
  const chain = createTronClient({
    fullHost: devnet.url,
    timeoutMs: opts.nodeTimeoutMs ?? 500,
    retries: 1,
    backoffMs: 5,
    maxBackoffMs: 20,
  });
  const t = await startTestApp({
    clock,
    chain,
    workerHost: {
      ttlMs: 30 * 86_400_000,
      renewMs: 50,
      maxBackoffMs: 100,
      jobs: [],
      workers: (s, lease) => (opts.watcher === false ? [] : [chainWatcher(s, lease, { intervalMs: 10 })]),
    },
    env: { WALLET_PASSPHRASE: TEST_PASSPHRASE, TRON_FULL_NODE_URL: devnet.url, ...opts.env },
  });
  await initWallet(t.app.services.db, clock, 'test', t.app.config, { mnemonic: TEST_MNEMONIC, scrypt: CHEAP_SCRYPT });
  const db = t.app.services.db;
  const synced = async () => {
    const { number: head, id } = devnet.control.info().head;
    await vi.waitFor(
      async () => {
        const c = await readCursor(db);
        expect(c?.next_block).toBe(head + 1);
        expect(c?.head_number).toBe(head);
        expect((await scannedBlock(db, head))?.hash).toBe(id);
      },
      { timeout: 15_000, interval: 10 },
    );
  };
  const app: ChainTestApp = {
    ...t,
    clock,
    devnet,
    synced,
    async mine(n = 1) {
      // One 3 s slot per block on the shared clock: block times follow it (expiry compares them).
      for (let i = 0; i < n; i++) {
        clock.advance(3_000);
        devnet.control.mine(1);
      }
      t.app.workers?.wake('chain-watcher');
      await synced();
    },
    async pay(to, amount, asset = 'USDT_TRON', from = 0) {
      const units = typeof amount === 'bigint' ? amount : BigInt(Math.round(Number(amount) * 1e6));
      return devnet.control.pay({ to, asset, amount: units, from }).txid;
    },
    async invoice(key, id) {
      const r = await api(t.url, `/v1/invoices/${id}`, { key });
      expect(r.status).toBe(200);
      return r.body;
    },
    async create(key, body) {
      const r = await api(t.url, '/v1/invoices', {
        key,
        body: { order_id: `o-${Math.random().toString(36).slice(2)}`, asset: 'USDT_TRON', expires_in: 3600, ...body },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body;
    },
    async shop(o = {}) {
      const { merchant, key } = await t.merchant({ name: 'Chain shop', addressMode: o.addressMode ?? 'per_invoice' });
      if (o.feePercent)
        await setServiceFee(db, clock, 'test', merchant.merchant_id, { percent: o.feePercent, payer: 'merchant' });
      if (o.confirmations !== undefined)
        await updateMerchantSettings(db, clock, 'test', merchant.merchant_id, { confirmations: o.confirmations });
      return { id: merchant.merchant_id, key };
    },
    async balanceOf(merchantId, asset = 'USDT_TRON') {
      return (await balance(db, merchantId, asset)).balance;
    },
    async events(merchantId) {
      return (await eventsOf(db, merchantId, 0, 1000)).map((e) => ({
        type: e.type,
        data: JSON.parse(e.data),
        subject_id: e.subject_id,
        dedupe_key: e.dedupe_key,
      }));
    },
    check: (settled = false) => expectLedgerMatchesDeposits(db, { settled }),
    async close() {
      await t.close();
      await devnet.close();
    },
  };
  return app;
}
