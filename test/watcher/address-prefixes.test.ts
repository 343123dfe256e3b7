/**
 * The watch list's prefix set: exact on prefixes (no false negative, no false positive among
 * prefixes) and on the derivation indexes each prefix was added with (every one of them, each
 * once) whatever the order of additions and wherever the merges fall, and the address decoding it
 * is fed with agrees with TronWeb's.
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

/** A seeded generator (mulberry32): the same sequence on every run, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The plain model: prefix → its distinct indexes. */
type Model = Map<number, Set<number>>;
function addTo(model: Model, prefix: number, index: number): void {
  const s = model.get(prefix) ?? new Set<number>();
  s.add(index);
  model.set(prefix, s);
}
const pairsOf = (model: Model) => [...model.values()].reduce((n, s) => n + s.size, 0);
const sortedIndexes = (set: AddressPrefixes, p: number) => set.indexesOf(p).sort((a, b) => a - b);
const modelIndexes = (model: Model, p: number) => [...(model.get(p) ?? [])].sort((a, b) => a - b);
/** Whether the set answers has/indexesOf exactly as the model for each probe, and holds as many pairs. */
function agrees(set: AddressPrefixes, model: Model, probes: Iterable<number>): boolean {
  if (set.size !== pairsOf(model)) return false;
  for (const p of probes) {
    if (set.has(p) !== model.has(p)) return false;
    const got = sortedIndexes(set, p);
    const want = modelIndexes(model, p);
    if (got.length !== want.length || got.some((x, k) => x !== want[k])) return false;
  }
  return true;
}
/** Pairs as load() takes them: sorted by prefix (equal prefixes in the given order). */
function loadable(pairs: [number, number][]): [Float64Array, Uint32Array] {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
  return [Float64Array.from(sorted, (x) => x[0]), Uint32Array.from(sorted, (x) => x[1])];
}

describe('AddressPrefixes', () => {
  it('many random prefixes added in random order across merges: each one is found with its index, others are not', () => {
    const set = new AddressPrefixes(64);
    const added = new Map<number, number>();
    const random = seeded(1);
    for (let i = 0; i < 20_000; i++) {
      const p = Math.floor(random() * MAX_PREFIX);
      set.add(p, i);
      added.set(p, i);
    }
    expect(set.size).toBe(20_000);
    for (const [p, i] of added) {
      expect(set.has(p)).toBe(true);
      expect(set.indexesOf(p)).toEqual([i]);
    }
    // Neighbours of every added prefix (just below and above) are absent unless added too.
    for (const p of added.keys()) {
      for (const q of [p - 1, p + 1]) {
        expect(set.has(q)).toBe(added.has(q));
        if (!added.has(q)) expect(set.indexesOf(q)).toEqual([]);
      }
    }
    expect(set.has(0)).toBe(added.has(0));
    expect(set.has(MAX_PREFIX)).toBe(added.has(MAX_PREFIX));
  });

  it('answers exactly as a Map of prefix → indexes after thousands of seeded adds with small merges', () => {
    // Few distinct prefixes (a small pool plus bucket edges) and few indexes, so prefixes are shared
    // by several indexes and pairs are re-added, in recent, in the merged arrays and across both.
    // (Each merge walks the 2^16 buckets: merges after every one or two adds would cost seconds.)
    for (const [seed, limit] of [[7, 3], [8, 13], [9, 64]] as const) {
      const random = seeded(seed);
      const pool = Array.from({ length: 300 }, (_, k) => (k % 3 === 0 ? Math.floor(random() * 2 ** 16) * 2 ** 32 + (k % 2) : Math.floor(random() * MAX_PREFIX)));
      pool.push(0, MAX_PREFIX);
      const set = new AddressPrefixes(limit);
      const model: Model = new Map();
      for (let i = 0; i < 3_000; i++) {
        const p = pool[Math.floor(random() * pool.length)] as number;
        const index = Math.floor(random() * 2_000);
        set.add(p, index);
        addTo(model, p, index);
        // Found at once, before any merge and after.
        if (!set.has(p) || !set.indexesOf(p).includes(index)) throw new Error(`seed ${seed}, add ${i}: (${p}, ${index}) not found`);
        if (i % 500 === 0) expect(agrees(set, model, pool), `seed ${seed}, after ${i + 1} adds`).toBe(true);
      }
      expect(agrees(set, model, [...pool, ...pool.map((p) => p + 1), ...pool.map((p) => p - 1)]), `seed ${seed}`).toBe(true);
    }
  });

  it('answers exactly as a Map of prefix → indexes, whatever the order and the merge size (property)', () => {
    // Random, small (dense), the extremes, and both sides of bucket edges (multiples of 2^32).
    const edge = fc.tuple(fc.integer({ min: 1, max: 2 ** 16 - 1 }), fc.integer({ min: -1, max: 0 })).map(([b, d]) => b * 2 ** 32 + d);
    // The same low 32 bits (what a bucket stores) in several buckets.
    const sameLow = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 5 })).map(([b, x]) => b * 2 ** 32 + x);
    const prefix = fc.oneof(fc.integer({ min: 0, max: MAX_PREFIX }), fc.integer({ min: 0, max: 40 }), fc.constant(MAX_PREFIX), edge, sameLow);
    // Few indexes: a prefix often comes with several, and a pair often comes twice.
    const index = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant(2 ** 32 - 1), fc.nat());
    fc.assert(
      fc.property(fc.array(fc.tuple(prefix, index), { maxLength: 300 }), fc.integer({ min: 1, max: 50 }), fc.array(prefix, { maxLength: 50 }), (adds, limit, probes) => {
        const set = new AddressPrefixes(limit);
        const model: Model = new Map();
        for (const [p, i] of adds) {
          set.add(p, i);
          addTo(model, p, i);
          if (!set.indexesOf(p).includes(i)) return false;
        }
        return agrees(set, model, [...adds.map((a) => a[0]), ...probes]);
      }),
      { numRuns: 300 },
    );
  });

  it('a first load() then additions answer exactly as a Map of all of them (property)', () => {
    const sameLow = fc.tuple(fc.integer({ min: 0, max: 2 ** 16 - 1 }), fc.integer({ min: 0, max: 3 })).map(([b, x]) => b * 2 ** 32 + x);
    const prefix = fc.oneof(fc.integer({ min: 0, max: MAX_PREFIX }), sameLow, fc.constant(MAX_PREFIX), fc.constant(0));
    const pair = fc.tuple(prefix, fc.integer({ min: 0, max: 5 }));
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 200 }), fc.array(pair, { maxLength: 100 }), fc.integer({ min: 1, max: 30 }), fc.array(prefix, { maxLength: 50 }), (loaded, added, limit, probes) => {
        const set = new AddressPrefixes(limit);
        const model: Model = new Map();
        for (const [p, i] of loaded) addTo(model, p, i);
        // Each pair once, as the loader gives them (derivation indexes are unique).
        set.load(...loadable([...model].flatMap(([p, s]) => [...s].map((i): [number, number] => [p, i]))));
        for (const [p, i] of added) {
          set.add(p, i);
          addTo(model, p, i);
        }
        return agrees(set, model, [...loaded.map((a) => a[0]), ...added.map((a) => a[0]), ...probes]);
      }),
      { numRuns: 300 },
    );
  });

  it('addresses sharing a prefix are all answered: both recent, both merged, one in each', () => {
    const p = 5 * 2 ** 32 + 123;
    const set = new AddressPrefixes(3);
    set.add(p, 10);
    set.add(p, 11); // both recent
    expect(sortedIndexes(set, p)).toEqual([10, 11]);
    set.add(1, 1); // third pair: merged [1, p, p]
    expect(sortedIndexes(set, p)).toEqual([10, 11]);
    set.add(p, 12); // one more, recent, beside two merged
    expect(sortedIndexes(set, p)).toEqual([10, 11, 12]);
    expect(set.size).toBe(4);
    // Neighbours in the same bucket and the same low bits in another bucket share none of them.
    for (const q of [p - 1, p + 1, 123, 6 * 2 ** 32 + 123]) expect(set.indexesOf(q), String(q)).toEqual([]);
    set.add(p + 1, 20);
    set.add(p - 1, 21); // merged: [1, p - 1, p, p, p, p + 1]
    expect(sortedIndexes(set, p)).toEqual([10, 11, 12]);
    expect(set.indexesOf(p - 1)).toEqual([21]);
    expect(set.indexesOf(p + 1)).toEqual([20]);
    expect(set.indexesOf(1)).toEqual([1]);
    expect(set.size).toBe(6);
  });

  it('addresses sharing a prefix are all answered after load(), and after load() then add()', () => {
    const p = 2 ** 40 + 9;
    const set = new AddressPrefixes(2);
    // Equal prefixes in either index order, the first and last of the array among them.
    set.load(Float64Array.of(p, p, p + 1, MAX_PREFIX, MAX_PREFIX), Uint32Array.of(8, 3, 4, 2 ** 32 - 1, 0));
    expect(sortedIndexes(set, p)).toEqual([3, 8]);
    expect(set.indexesOf(p + 1)).toEqual([4]);
    expect(sortedIndexes(set, MAX_PREFIX)).toEqual([0, 2 ** 32 - 1]);
    expect(set.indexesOf(p - 1)).toEqual([]);
    set.add(p, 20); // recent, beside two loaded
    expect(sortedIndexes(set, p)).toEqual([3, 8, 20]);
    set.add(p, 21); // merged
    expect(sortedIndexes(set, p)).toEqual([3, 8, 20, 21]);
    expect(set.size).toBe(7);
  });

  it('the same pair, whether still recent, already merged or loaded, is held once; another index is not a duplicate', () => {
    const set = new AddressPrefixes(2);
    set.add(7, 70);
    set.add(7, 70); // recent
    expect(set.size).toBe(1);
    expect(set.indexesOf(7)).toEqual([70]);
    set.add(3, 30); // merge: [3, 7]
    set.add(7, 70);
    set.add(3, 30);
    expect(set.size).toBe(2);
    set.add(7, 71); // same prefix, another address
    set.add(7, 71); // and again, recent
    expect(set.size).toBe(3);
    set.add(5, 50); // merge: [3, 5, 7, 7]
    set.add(7, 71);
    set.add(7, 70);
    expect(set.size).toBe(4);
    expect(sortedIndexes(set, 7)).toEqual([70, 71]);
    // Three indexes for one prefix in recent (the array form), each re-added.
    set.add(9, 1);
    expect(set.size).toBe(5);
    const many = new AddressPrefixes(10);
    for (const i of [1, 2, 3, 2, 1, 3]) many.add(9, i);
    expect(many.size).toBe(3);
    expect(sortedIndexes(many, 9)).toEqual([1, 2, 3]);
    for (const p of [3, 5, 7, 9]) expect(set.has(p)).toBe(true);
    for (const p of [0, 4, 6, 8, 10]) expect(set.has(p)).toBe(false);

    const loaded = new AddressPrefixes(2);
    loaded.load(Float64Array.of(4, 4), Uint32Array.of(40, 41));
    loaded.add(4, 41);
    loaded.add(4, 40);
    expect(loaded.size).toBe(2);
    expect(sortedIndexes(loaded, 4)).toEqual([40, 41]);
  });

  it('refuses what is no 48-bit prefix or no derivation index (it would be stored where lookups never go, or wrapped)', () => {
    const set = new AddressPrefixes();
    for (const bad of [-1, 2 ** 48, 1.5, Number.NaN]) expect(() => set.add(bad, 0), String(bad)).toThrow(RangeError);
    for (const bad of [-1, 2 ** 32, 1.5, Number.NaN]) expect(() => set.add(1, bad), String(bad)).toThrow(RangeError);
    expect(set.size).toBe(0);
    expect(set.has(Number.NaN)).toBe(false);
    expect(set.has(1)).toBe(false);
    expect(set.indexesOf(Number.NaN)).toEqual([]);
    set.add(2 ** 48 - 1, 2 ** 32 - 1);
    expect(set.indexesOf(2 ** 48 - 1)).toEqual([2 ** 32 - 1]);
  });

  it('load() refuses unsorted or out of range prefixes, mismatched lengths, a pair twice, a set not empty; leaves the set empty', () => {
    const bad: [Float64Array, Uint32Array, RegExp][] = [
      [Float64Array.of(5, 3), Uint32Array.of(0, 1), /ascending order/],
      [Float64Array.of(1, 2 ** 33, 2 ** 32), Uint32Array.of(0, 1, 2), /ascending order/],
      [Float64Array.of(-1, 3), Uint32Array.of(0, 1), /ascending order/],
      [Float64Array.of(3, 2 ** 48), Uint32Array.of(0, 1), /ascending order/],
      [Float64Array.of(1.5), Uint32Array.of(0), /ascending order/],
      [Float64Array.of(1, 2, 3), Uint32Array.of(0, 1), /3 prefixes for 2 indexes/],
      [Float64Array.of(1, 2), Uint32Array.of(0, 1, 2), /2 prefixes for 3 indexes/],
      [Float64Array.of(1, 4, 4, 4), Uint32Array.of(0, 7, 8, 7), /\(4, 7\) twice/],
    ];
    for (const [prefixes, indexes, message] of bad) {
      const set = new AddressPrefixes();
      expect(() => set.load(prefixes, indexes), String(prefixes)).toThrow(message);
      expect(set.size).toBe(0);
      expect([...prefixes].some((p) => set.has(p))).toBe(false);
    }
    // The same prefix twice with two indexes, and the same index under two prefixes, are fine.
    const ok = new AddressPrefixes();
    ok.load(Float64Array.of(1, 4, 4, 9), Uint32Array.of(7, 8, 7, 7));
    expect(ok.size).toBe(4);
    const after = new AddressPrefixes();
    after.add(1, 1);
    expect(() => after.load(Float64Array.of(2), Uint32Array.of(2))).toThrow(/empty set/);
    expect(after.has(2)).toBe(false);
  });
});

describe('Watchlist', () => {
  it('may hold an address and every look-alike sharing its 48-bit prefix, never an unrelated one', () => {
    const watch = new Watchlist(new AddressPrefixes(16));
    const hexes = Array.from({ length: 200 }, randomHex);
    hexes.forEach((hex, i) => watch.add(fromHexAddress(hex), i));
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
    expect(() => watch.add('T-not-an-address', 0)).toThrow(/not a TRON address/);
  });
});
