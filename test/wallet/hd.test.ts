/** HD derivation against the vectors of TRON.md, from the seed and from the xpub alone. */
import { TronWeb } from 'tronweb';
import { describe, expect, it, vi } from 'vitest';
import { DepositKeyChain, depositPrivateKey, hotWalletPrivateKey, normaliseMnemonic, publicInfoOf, generateMnemonic, INDEX_SPACE } from '../../src/wallet/hd.js';
import { DepositAddressPool } from '../../src/wallet/pool.js';
import { TEST_MNEMONIC, VECTORS } from '../invoices/fixture.js';
import { burstOfCreations } from './burst.js';

describe('HD wallet', () => {
  const info = publicInfoOf(TEST_MNEMONIC);
  const chain = new DepositKeyChain(info.depositXpub);

  it('derives the TRON.md vectors from the xpub only', () => {
    expect(info.depositXpub).toMatch(/^xpub/);
    expect([0, 1, 2].map((i) => chain.addressAt(i))).toEqual(VECTORS);
    expect(TronWeb.address.toHex(VECTORS[0]!).toLowerCase()).toBe('41c8599111f29c1e1e061265b4af93ea1f274ad78a');
  });

  it('matches the seed-side derivation (tronweb) for the signer, across the index range', () => {
    for (const i of [0, 1, 2, 17, 1000, 2 ** 31 - 1]) {
      const fromSeed = TronWeb.fromMnemonic(TEST_MNEMONIC, `m/44'/195'/0'/0/${i}`) as { address: string; privateKey: string };
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

  it('a burst of creations larger than the pool waits for checked addresses instead of deriving on the event loop', async () => {
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
    const pool = new DepositAddressPool(chain, { ahead: 2, worker: false });
    pool.moveFloor(0);
    await pool.fill();
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

  it('the main-thread pool serves the same addresses as direct derivation, ahead of the index', async () => {
    const pool = new DepositAddressPool(chain, { ahead: 8, chunk: 3, worker: false });
    pool.moveFloor(0);
    await pool.fill();
    expect(pool.size).toBe(8);
    expect([0, 1, 2].map((i) => pool.addressAt(i))).toEqual(VECTORS);
    expect(pool.hits).toBe(3);
    expect(pool.addressAt(40)).toBe(chain.addressAt(40)); // a miss derives on the spot
    expect(pool.misses).toBe(1);
    await pool.fill();
    expect(pool.addressAt(41)).toBe(chain.addressAt(41));
    expect(pool.hits).toBe(4);
    expect(pool.usesWorker).toBe(false);
    await pool.stop();
  });

  it('a pool used less than half tops itself up once creations pause, and a stopped one does not', async () => {
    const pool = new DepositAddressPool(chain, { ahead: 16, chunk: 4, worker: false, idleRefillMs: 20 });
    pool.moveFloor(0);
    await pool.fill();
    for (let i = 0; i < 5; i++) pool.addressAt(i);
    expect(pool.size).toBe(11); // above half: no refill during the burst
    await vi.waitFor(() => expect(pool.size).toBe(16), { timeout: 5000 });
    expect(pool.addressAt(20)).toBe(chain.addressAt(20));
    expect(pool.misses).toBe(0); // 20 was derived ahead by the top-up

    const stopped = new DepositAddressPool(chain, { ahead: 16, chunk: 4, worker: false, idleRefillMs: 20 });
    stopped.moveFloor(0);
    await stopped.fill();
    stopped.addressAt(0);
    await stopped.stop();
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped.size).toBe(15);
  });
});
