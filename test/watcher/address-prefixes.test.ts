/**
 * The watch list's prefix set: exact on prefixes (no false negative, no false positive among
 * prefixes) whatever the order of additions and wherever the merges fall, and the address decoding
 * it is fed with agrees with TronWeb's.
 */
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, fromHexAddress, toHexAddress } from '../../src/chain/address.js';
import { AddressPrefixes, prefixOfBytes, prefixOfHex } from '../../src/workers/address-prefixes.js';
import { Watchlist } from '../../src/workers/chain-match.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const MAX_PREFIX = 2 ** 48 - 1;
const randomHex = () => `41${randomBytes(20).toString('hex')}`;
/** Another `41…` address with the same first 6 bytes after `41`. */
const lookAlike = (hex: string) => `${hex.slice(0, 14)}${randomBytes(14).toString('hex')}`;

describe('address decoding for the watch list', () => {
  it('addressBytes and the prefixes agree with TronWeb for random addresses', () => {
    for (let i = 0; i < 500; i++) {
      const hex = randomHex();
      const address = fromHexAddress(hex);
      expect(addressBytes(address).toString('hex')).toBe(toHexAddress(address));
      expect(prefixOfBytes(addressBytes(address))).toBe(prefixOfHex(hex));
      expect(prefixOfHex(hex)).toBe(Number.parseInt(hex.slice(2, 14), 16));
    }
  });

  it('addressBytes refuses what toHexAddress refuses: bad checksum, alphabet, length, version byte', () => {
    const address = fromHexAddress(randomHex());
    const swapped = address.slice(0, 33) + (address[33] === 'a' ? 'b' : 'a');
    const notTron = base58check(`a0${randomBytes(20).toString('hex')}`);
    for (const bad of [swapped, `${address.slice(0, 33)}0`, address.slice(0, 33), `${address}1`, notTron, '']) {
      expect(() => toHexAddress(bad), bad).toThrow();
      expect(() => addressBytes(bad), bad).toThrow(/not a TRON address/);
    }
  });

  it('prefixOfHex: null for what is no `41…` hex address', () => {
    const hex = randomHex();
    for (const bad of ['', hex.slice(0, 41), `${hex}0`, `42${hex.slice(2)}`, `41zz${hex.slice(4)}`, `41 1${hex.slice(5)}`]) expect(prefixOfHex(bad), bad).toBeNull();
    expect(prefixOfHex(`41${'f'.repeat(40)}`)).toBe(MAX_PREFIX);
  });
});

/** base58check of any bytes (fromHexAddress insists on a `41` version byte). */
function base58check(hex: string): string {
  const bytes = Buffer.from(hex, 'hex');
  const check = createHash('sha256').update(createHash('sha256').update(bytes).digest()).digest().subarray(0, 4);
  let n = BigInt(`0x${Buffer.concat([bytes, check]).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  return out;
}

describe('AddressPrefixes', () => {
  it('many random prefixes added in random order across merges: each one is found, others are not', () => {
    const set = new AddressPrefixes(64);
    const added = new Set<number>();
    for (let i = 0; i < 20_000; i++) {
      const p = Math.floor(Math.random() * MAX_PREFIX);
      set.add(p);
      added.add(p);
    }
    expect(set.size).toBe(added.size);
    for (const p of added) expect(set.has(p)).toBe(true);
    // Neighbours of every added prefix (just below and above) are absent unless added too.
    for (const p of added) {
      for (const q of [p - 1, p + 1]) expect(set.has(q)).toBe(added.has(q));
    }
    expect(set.has(0)).toBe(added.has(0));
    expect(set.has(MAX_PREFIX)).toBe(added.has(MAX_PREFIX));
  });

  it('answers exactly as a Set of the same prefixes, whatever the order and the merge size (property)', () => {
    // Random, small (dense), the extremes, and both sides of bucket edges (multiples of 2^32).
    const edge = fc.tuple(fc.integer({ min: 1, max: 2 ** 16 - 1 }), fc.integer({ min: -1, max: 0 })).map(([b, d]) => b * 2 ** 32 + d);
    // The same low 32 bits (what a bucket stores) in several buckets.
    const sameLow = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 5 })).map(([b, x]) => b * 2 ** 32 + x);
    const prefix = fc.oneof(fc.integer({ min: 0, max: MAX_PREFIX }), fc.integer({ min: 0, max: 40 }), fc.constant(MAX_PREFIX), edge, sameLow);
    fc.assert(
      fc.property(fc.array(prefix, { maxLength: 300 }), fc.integer({ min: 1, max: 50 }), fc.array(prefix, { maxLength: 50 }), (adds, limit, probes) => {
        const set = new AddressPrefixes(limit);
        const ref = new Set<number>();
        for (const p of adds) {
          set.add(p);
          ref.add(p);
          // Found at once, before any merge and after.
          if (!set.has(p)) return false;
        }
        if (set.size !== ref.size) return false;
        return [...adds, ...probes].every((p) => set.has(p) === ref.has(p));
      }),
      { numRuns: 300 },
    );
  });

  it('a first load() then additions answer exactly as a Set of all of them (property)', () => {
    const sameLow = fc.tuple(fc.integer({ min: 0, max: 2 ** 16 - 1 }), fc.integer({ min: 0, max: 3 })).map(([b, x]) => b * 2 ** 32 + x);
    const prefix = fc.oneof(fc.integer({ min: 0, max: MAX_PREFIX }), sameLow, fc.constant(MAX_PREFIX), fc.constant(0));
    fc.assert(
      fc.property(fc.array(prefix, { maxLength: 200 }), fc.array(prefix, { maxLength: 100 }), fc.integer({ min: 1, max: 30 }), fc.array(prefix, { maxLength: 50 }), (loaded, added, limit, probes) => {
        const set = new AddressPrefixes(limit);
        const ref = new Set(loaded);
        set.load(Float64Array.from(ref).sort());
        for (const p of added) {
          set.add(p);
          ref.add(p);
        }
        if (set.size !== ref.size) return false;
        return [...loaded, ...added, ...probes].every((p) => set.has(p) === ref.has(p));
      }),
      { numRuns: 300 },
    );
  });

  it('a duplicate, whether still recent or already merged, is held once', () => {
    const set = new AddressPrefixes(2);
    set.add(7);
    set.add(7); // recent
    expect(set.size).toBe(1);
    set.add(3); // merge: [3, 7]
    set.add(7);
    set.add(3);
    expect(set.size).toBe(2);
    set.add(5);
    set.add(9); // merge: [3, 5, 7, 9]
    expect(set.size).toBe(4);
    for (const p of [3, 5, 7, 9]) expect(set.has(p)).toBe(true);
    for (const p of [0, 4, 6, 8, 10]) expect(set.has(p)).toBe(false);
  });

  it('refuses what is no 48-bit prefix (it would be stored where lookups never go)', () => {
    const set = new AddressPrefixes();
    for (const bad of [-1, 2 ** 48, 1.5, Number.NaN]) expect(() => set.add(bad), String(bad)).toThrow(RangeError);
    expect(set.size).toBe(0);
    expect(set.has(Number.NaN)).toBe(false);
  });
});

describe('Watchlist', () => {
  it('may hold an address and every look-alike sharing its 48-bit prefix, never an unrelated one', () => {
    const watch = new Watchlist(16);
    const hexes = Array.from({ length: 200 }, randomHex);
    for (const hex of hexes) watch.add(fromHexAddress(hex));
    for (const hex of hexes) {
      expect(watch.mayHold(hex)).toBe(true);
      expect(watch.mayHold(lookAlike(hex))).toBe(true);
    }
    expect(watch.prefixes.size).toBe(200);
    expect(hexes.map(() => watch.mayHold(randomHex())).filter(Boolean)).toEqual([]);
    expect(watch.mayHold('')).toBe(false);
  });

  it('a malformed stored address throws rather than being left out unseen', () => {
    const watch = new Watchlist();
    expect(() => watch.add('T-not-an-address')).toThrow(/not a TRON address/);
  });
});
