/** HD derivation against the vectors of docs/tron.md, from the seed and from the xpub alone. */
import { TronWeb } from 'tronweb';
import { describe, expect, it, vi } from 'vitest';
import {
  DepositKeyChain,
  depositPrivateKey,
  hotWalletPrivateKey,
  normaliseMnemonic,
  publicInfoOf,
  generateMnemonic,
  INDEX_SPACE,
} from '../../src/wallet/hd.js';
import { DepositAddressPool } from '../../src/wallet/pool.js';
import { TEST_MNEMONIC, VECTORS } from '../invoices/fixture.js';
import { burstOfCreations } from './burst.js';

describe('HD wallet', () => {
  const info = publicInfoOf(TEST_MNEMONIC);
  const chain = new DepositKeyChain(info.depositXpub);

  it('derives the vectors of docs/tron.md from the xpub only', () => {
    expect(info.depositXpub).toMatch(/^xpub/);
    expect([0, 1, 2].map((i) => chain.addressAt(i))).toEqual(VECTORS);
    expect(TronWeb.address.toHex(VECTORS[0]!).toLowerCase()).toBe('41c8599111f29c1e1e061265b4af93ea1f274ad78a');
  });

  it('matches the seed-side derivation (tronweb) for the signer, across the index range', () => {
    for (const i of [0, 1, 2, 17, 1000, 2 ** 31 - 1]) {
      const fromSeed = TronWeb.fromMnemonic(TEST_MNEMONIC, `m/44'/195'/0'/0/${i}`) as {
        address: string;
        privateKey: string;
      };
      expect(chain.addressAt(i), `index ${i}`).toBe(fromSeed.address);
      expect(depositPrivateKey(TEST_MNEMONIC, i)).toBe(fromSeed.privateKey.slice(2));
    }
    const hot = TronWeb.fromMnemonic(TEST_MNEMONIC, "m/44'/195'/1'/0/0") as { address: string; privateKey: string };
    expect(info.hotAddress).toBe(hot.address);
    expect(TronWeb.address.fromPrivateKey(hotWalletPrivateKey(TEST_MNEMONIC))).toBe(hot.address);
    expect(VECTORS).not.toContain(info.hotAddress);
  });

  it('refuses hardened or negative indexes and private extended keys', () => {
    expect(() => chain.addressAt(INDEX_SPACE)).toThrow(RangeError);
    expect(() => chain.addressAt(-1)).toThrow(RangeError);
    expect(() => chain.addressAt(1.5)).toThrow(RangeError);
    expect(() => new DepositKeyChain('xpub-not-a-key')).toThrow();
  });

  it('validates mnemonics and generates 24-word ones', () => {
    expect(normaliseMnemonic(`  ${TEST_MNEMONIC.toUpperCase().replace(/ /g, '  \n')} `)).toBe(TEST_MNEMONIC);
    expect(() => normaliseMnemonic(TEST_MNEMONIC.replace(/about$/, 'abandon'))).toThrow(/checksum/);
    expect(() => normaliseMnemonic('abandon abandon')).toThrow();
    const m = generateMnemonic();
    expect(m.split(' ')).toHaveLength(24);
    expect(normaliseMnemonic(m)).toBe(m);
    expect(generateMnemonic()).not.toBe(m);
  });

  it('the worker-thread pool derives exactly what the main thread derives', async () => {
    const pool = new DepositAddressPool(chain, { ahead: 300, batch: 64 });
    try {
      pool.moveFloor(5);
      await pool.fill();
      expect(pool.usesWorker).toBe(true);
      expect(pool.workerFailure).toBeNull();
      expect(pool.size).toBe(300);
      for (const i of [5, 6, 99, 200, 304]) expect(pool.addressAt(i), `index ${i}`).toBe(chain.addressAt(i));
      expect(pool.misses).toBe(0);
    } finally {
      await pool.stop();
    }
  });

  it('a burst of creations larger than the pool waits for addresses from the worker instead of deriving on the event loop', async () => {
    const pool = new DepositAddressPool(chain, { ahead: 8, batch: 4 });
    try {
      pool.moveFloor(0);
      await pool.fill();
      const created = await burstOfCreations(pool, 40);
      expect(pool.misses).toBe(0);
      expect(pool.hits).toBe(40);
      for (const { index, address } of created) expect(address, `index ${index}`).toBe(chain.addressAt(index));
    } finally {
      await pool.stop();
    }
  });

  it('a claim released unused lets the next creation through; a stopped pool lets every one through', async () => {
    const pool = new DepositAddressPool(chain, { ahead: 2, batch: 2 });
    pool.moveFloor(0);
    await pool.fill();
    expect(pool.size).toBe(2);
    const held = [await pool.reserve(), await pool.reserve()];
    let third = false;
    const waiting = pool.reserve().then((c) => ((third = true), c));
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBe(false); // both ready addresses are held
    held[0]!.release();
    held[0]!.release(); // twice is once
    (await waiting).release();
    expect(third).toBe(true);
    const fourth = pool.reserve();
    const fifth = pool.reserve();
    await pool.stop();
    await expect(Promise.all([fourth, fifth])).resolves.toHaveLength(2);
  });

  it('without a worker every address is derived on demand, and a claim never waits', async () => {
    const pool = new DepositAddressPool(chain, { ahead: 8, worker: false });
    pool.moveFloor(0);
    await pool.fill();
    expect(pool.size).toBe(0);
    expect(pool.usesWorker).toBe(false);
    const claims = await Promise.all(Array.from({ length: 20 }, () => pool.reserve()));
    expect([0, 1, 2].map((i) => pool.addressAt(i, claims[i]))).toEqual(VECTORS);
    expect(pool.misses).toBe(3);
    for (const c of claims) c.release();
    await pool.stop();
  });

  it('the pool refills in whole batches as creations use it, and drops what falls below the index counter', async () => {
    const pool = new DepositAddressPool(chain, { ahead: 8, batch: 4 });
    try {
      pool.moveFloor(0);
      await pool.fill();
      expect(pool.size).toBe(8);
      for (let i = 0; i < 3; i++) expect(pool.addressAt(i)).toBe(chain.addressAt(i));
      await new Promise((r) => setTimeout(r, 100));
      expect(pool.size).toBe(5); // three missing: less than a batch, no refill yet
      pool.addressAt(3);
      await vi.waitFor(() => expect(pool.size).toBe(8), { timeout: 5000 });
      pool.moveFloor(10); // another process took indexes 4..9: 10 and 11 stay, the rest follows
      await vi.waitFor(() => expect(pool.size).toBe(8), { timeout: 5000 });
      for (let i = 10; i < 18; i++) expect(pool.addressAt(i), `index ${i}`).toBe(chain.addressAt(i));
      expect(pool.misses).toBe(0);
    } finally {
      await pool.stop();
    }
  });

  it('with a low-water mark the pool derives nothing until half is used, then tops up to full', async () => {
    const pool = new DepositAddressPool(chain, { ahead: 8, batch: 2, lowWater: 4 });
    try {
      pool.moveFloor(0);
      await pool.fill();
      expect(pool.size).toBe(8);
      for (let i = 0; i < 3; i++) pool.addressAt(i);
      await new Promise((r) => setTimeout(r, 100));
      expect(pool.size).toBe(5); // a burst below the mark meets no derivation beside it
      pool.addressAt(3);
      await vi.waitFor(() => expect(pool.size).toBe(8), { timeout: 5000 });
      for (let i = 4; i < 12; i++) expect(pool.addressAt(i), `index ${i}`).toBe(chain.addressAt(i));
      expect(pool.misses).toBe(0);
    } finally {
      await pool.stop();
    }
  });
});
