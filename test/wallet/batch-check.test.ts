/**
 * The pool's check of the derivation worker's public keys (src/wallet/batch-check.ts): one
 * randomized equation over a batch instead of deriving every key again (the derivation worker runs
 * this same code on its batches). These are the derivation worker's bugs it must catch, including the ones a plain sum would miss.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { describe, expect, it } from 'vitest';
import { checkedAddresses as check, linearCombination } from '../../src/wallet/batch-check.js';
import { DepositKeyChain, publicInfoOf } from '../../src/wallet/hd.js';
import { TEST_MNEMONIC } from '../invoices/fixture.js';

const chain = new DepositKeyChain(publicInfoOf(TEST_MNEMONIC).depositXpub);
const raw = (index: number) => chain.pointAt(index).toRawBytes(false).subarray(1);
const batch = (from: number, count: number): (Uint8Array | null)[] => Array.from({ length: count }, (_, i) => raw(from + i));
const parent = { chainCode: chain.chainCode, compressed: chain.parentCompressed };
const checkedAddresses = async (from: number, keys: (Uint8Array | null)[]) => check(parent, from, keys);

describe('the batch check of worker-derived keys', () => {
  it('passes a right batch and encodes every address as direct derivation does', async () => {
    const addresses = await checkedAddresses(40, batch(40, 70));
    expect(addresses).toEqual(Array.from({ length: 70 }, (_, i) => chain.addressAt(40 + i)));
  });

  it('catches two keys swapped inside a batch (their sum is unchanged) and names the index', async () => {
    const keys = batch(0, 32);
    [keys[9], keys[10]] = [keys[10]!, keys[9]!];
    await expect(checkedAddresses(0, keys)).rejects.toThrow(/disagrees with the check at index 9$/);
  });

  it('catches a batch shifted by one index, and a key of another index at the end', async () => {
    await expect(checkedAddresses(100, batch(101, 16))).rejects.toThrow(/check at index 100$/);
    const keys = batch(200, 16);
    keys[15] = raw(999);
    await expect(checkedAddresses(200, keys)).rejects.toThrow(/check at index 215$/);
  });

  it('catches two wrong keys whose errors cancel in a plain sum', async () => {
    // C3 + d and C4 - d: the sum of the batch is right, each key is wrong.
    const d = secp256k1.ProjectivePoint.BASE.multiply(12345n);
    const keys = batch(0, 8);
    keys[3] = chain.pointAt(3).add(d).toRawBytes(false).subarray(1);
    keys[4] = chain.pointAt(4).subtract(d).toRawBytes(false).subarray(1);
    await expect(checkedAddresses(0, keys)).rejects.toThrow(/disagrees with the check at index 3$/);
  });

  it('refuses bytes that are not a curve point, and a key where BIP32 has none', async () => {
    const keys = batch(0, 4);
    keys[2] = Uint8Array.from(keys[2]!, (b, i) => (i === 63 ? b ^ 1 : b));
    await expect(checkedAddresses(0, keys)).rejects.toThrow(/no valid public key at index 2/);
    const missing: (Uint8Array | null)[] = batch(0, 4);
    missing[1] = null;
    await expect(checkedAddresses(0, missing)).rejects.toThrow(/check at index 1 \(validity\)/);
  });

  it('computes Σ wᵢ·Pᵢ as the naive sum does, for every window size it picks', async () => {
    for (const count of [3, 64, 512]) {
      const points = Array.from({ length: count }, (_, i) => secp256k1.ProjectivePoint.BASE.multiply(BigInt(i + 2) ** 5n));
      const weights = points.map((_, i) => (BigInt(i) * 0x9e3779b97f4a7c15n + 1n) % 2n ** 64n);
      const naive = points.reduce((acc, p, i) => (weights[i] === 0n ? acc : acc.add(p.multiply(weights[i]!))), secp256k1.ProjectivePoint.ZERO);
      expect((await linearCombination(points, weights)).equals(naive), `${count} points`).toBe(true);
    }
  });
});
