/**
 * Deposit addresses match the seed: whatever the concurrency, pool refills and restarts, every
 * stored deposit address is the address of its derivation index under the mnemonic (re-derived
 * here independently: ethers from the phrase, TronWeb from the private key), and no address or
 * index is stored twice. The pool refuses a derivation worker that answers wrongly.
 */
import { TronWeb, utils } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { DepositKeyChain, generateMnemonic, publicInfoOf } from '../../src/wallet/hd.js';
import { DepositAddressPool, startDeriveThread, type BatchDeriver } from '../../src/wallet/pool.js';
import { api } from '../helpers/http.js';
import { burstOfCreations } from './burst.js';
import { newInvoice, startInvoiceApp, TEST_MNEMONIC } from '../invoices/fixture.js';

const { ethersHDNodeWallet } = utils.ethersUtils;
/** m/44'/195'/0'/0 derived from the phrase by ethers, with its private key: none of paygate's code. */
const account = ethersHDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, "m/44'/195'/0'/0");

/** The address of m/44'/195'/0'/0/i from the seed: ethers' private derivation, TronWeb's address. */
function fromSeed(index: number): string {
  return TronWeb.address.fromPrivateKey(account.deriveChild(index).privateKey.slice(2)) as string;
}

const chain = new DepositKeyChain(publicInfoOf(TEST_MNEMONIC).depositXpub);

describe('the address pool', () => {
  it('the worker thread derives 1,024 addresses, each the seed address of its index', async () => {
    const pool = new DepositAddressPool(chain, { ahead: 1024 });
    try {
      await pool.fill();
      expect(pool.workerFailure).toBeNull();
      expect(pool.usesWorker).toBe(true);
      expect(pool.size).toBe(1024);
      for (let i = 0; i < 1024; i++) expect(pool.addressAt(i), `index ${i}`).toBe(fromSeed(i));
      // Every address came from the worker, none derived here on a miss.
      expect(pool.misses).toBe(0);
    } finally {
      await pool.stop();
    }
  });

  it('a derivation worker that has exited leaves the pool deriving on demand, and waiting creations go on', async () => {
    const exited = startDeriveThread(chain.xpub);
    await exited.stop();
    const told: string[] = [];
    const pool = new DepositAddressPool(chain, {
      ahead: 4,
      batch: 4,
      deriver: exited,
      onWorkerFailure: (reason) => told.push(reason),
    });
    pool.moveFloor(0);
    const created = await burstOfCreations(pool, 12);
    expect(pool.workerFailure).toBe('derivation worker exited');
    expect(told).toEqual([pool.workerFailure]); // serve logs it as an error (app.ts)
    expect(pool.usesWorker).toBe(false);
    for (const { index, address } of created) expect(address, `index ${index}`).toBe(fromSeed(index));
    await pool.stop();
  });

  it('a derivation worker that hangs is dropped after its timeout, and waiting creations go on', async () => {
    const hung: BatchDeriver = { derive: () => new Promise(() => {}), stop: async () => {} };
    const pool = new DepositAddressPool(chain, { ahead: 4, batch: 4, workerTimeoutMs: 300, deriver: hung });
    pool.moveFloor(0);
    const created = await burstOfCreations(pool, 6);
    expect(pool.workerFailure).toBe('derivation worker did not answer within 300 ms');
    for (const { index, address } of created) expect(address, `index ${index}`).toBe(fromSeed(index));
    await pool.stop();
  });

  it('refuses a worker that answers for other indexes or from another key', async () => {
    const other = new DepositKeyChain(publicInfoOf(generateMnemonic()).depositXpub);
    const addresses = (c: DepositKeyChain, from: number, count: number) =>
      Array.from({ length: count }, (_, i) => c.addressAt(from + i));
    const shifted: BatchDeriver = {
      derive: async (from, count) => ({ from: from + 1, addresses: addresses(chain, from + 1, count) }),
      stop: async () => {},
    };
    const short: BatchDeriver = {
      derive: async (from, count) => ({ from, addresses: addresses(chain, from, count - 1) }),
      stop: async () => {},
    };
    const foreign: BatchDeriver = {
      derive: async (from, count) => ({ from, addresses: addresses(other, from, count) }),
      stop: async () => {},
    };
    for (const [deriver, failure] of [
      [shifted, /answered indexes 1\+8 for 0\+8/],
      [short, /answered indexes 0\+7 for 0\+8/],
      [foreign, /disagrees with the main thread at index [0-7]$/],
    ] as const) {
      const pool = new DepositAddressPool(chain, { ahead: 8, batch: 8, deriver });
      await pool.fill();
      expect(pool.workerFailure).toMatch(failure);
      expect(pool.size).toBe(0);
      for (let i = 0; i < 8; i++) expect(pool.addressAt(i), `index ${i}`).toBe(fromSeed(i));
      await pool.stop();
    }
  });
});

describe('stored deposit addresses', () => {
  it('are each the seed address of their index, and unique, after concurrent creation, refills and a restart', async () => {
    // A small pool with small worker batches, so the run spans many refills.
    const t = await startInvoiceApp({ addresses: { pool: { ahead: 8, batch: 4 } } });
    const perInvoice = await t.merchant({ name: 'Per invoice' });
    const perUser = await t.merchant({ name: 'Per user', addressMode: 'per_user' });
    const burst = (url: string, round: number) =>
      Promise.all([
        ...Array.from({ length: 24 }, () => api(url, '/v1/invoices', { key: perInvoice.key, body: newInvoice() })),
        ...Array.from({ length: 16 }, (_, i) =>
          api(url, '/v1/addresses', {
            key: perUser.key,
            body: { external_user_id: `user-${round}-${i % 12}`, network: 'tron' },
          }),
        ),
      ]);
    for (const r of await burst(t.url, 1)) expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    expect(t.app.services.addresses.stats.worker).toBe(true);
    await t.app.services.addresses.start(t.app.services.db); // a full refill
    const config = t.app.config;
    await t.app.stop();
    const again = await buildApp(config, {
      clock: t.clock,
      workers: false,
      addresses: { pool: { ahead: 8, batch: 4 } },
    });
    try {
      const url = await again.start();
      for (const r of await burst(url, 2)) expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
      expect(again.services.addresses.stats.workerFailure).toBeNull();
      const rows = await again.services.db
        .selectFrom('deposit_addresses')
        .select(['address', 'derivation_index'])
        .orderBy('derivation_index')
        .execute();
      // 48 invoices and 24 distinct users (12 per round).
      expect(rows).toHaveLength(72);
      expect(new Set(rows.map((r) => r.address)).size).toBe(rows.length);
      expect(new Set(rows.map((r) => r.derivation_index)).size).toBe(rows.length);
      for (const r of rows) expect(r.address, `index ${r.derivation_index}`).toBe(fromSeed(r.derivation_index));
      // Invoices show the addresses that were stored.
      const invoices = await again.services.db.selectFrom('invoices').select('address').execute();
      const stored = new Set(rows.map((r) => r.address));
      expect(invoices.every((i) => stored.has(i.address))).toBe(true);
    } finally {
      await again.stop();
      await t.close().catch(() => {});
    }
  });
});
