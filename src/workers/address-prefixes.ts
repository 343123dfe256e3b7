/**
 * The watcher's set of deposit addresses, kept compact: each address is reduced to its 48-bit
 * prefix (the 6 bytes after `41`) and held with its derivation index. Prefixes are grouped in 2^16
 * buckets by their top 16 bits, and each bucket holds the low 32 bits of its prefixes, sorted, in
 * one shared Uint32Array, with each one's derivation index at the same position in another: 8
 * bytes an address (the bucket says the rest), where the Map of strings it replaced held ~290, so
 * 2.2 million addresses fit in 18 MB instead of 600. A lookup bisects inside its bucket.
 *
 * A hit is only a candidate: another address may share the prefix (by chance about n / 2^48 per
 * transfer looked up, or on purpose: anyone can send to a look-alike of a published address), so
 * the watcher reads the rows of the hit's derivation indexes (the primary key of deposit_addresses,
 * which has no index on the address text) and compares their address before crediting anything.
 * Two of our own addresses may share a prefix too (by chance, n^2 / 2^49 of them), so a prefix maps
 * to every index it was added with, never only the last. A miss is certain: every added address
 * answers true.
 *
 * Addresses arrive in derivation order, which is random in prefix order. Inserting each into the
 * sorted arrays would move half of them; they wait in a small Map instead and are merged in once
 * it holds `recentLimit` of them, one pass over the arrays per `recentLimit` additions.
 */

/**
 * The 48-bit prefix of a `41…` hex address, or null when it is not one (wrong length, prefix or
 * digit). Self-contained: the parse worker evaluates its text to list a block's receivers
 * (prune.ts packScanBlock), and the watcher's skipping of a block relies on both computing the same.
 */
export function prefixOfHex(hex: string): number | null {
  if (hex.length !== 42 || hex.charCodeAt(0) !== 0x34 || hex.charCodeAt(1) !== 0x31) return null;
  // Digit by digit: no substring to allocate for each of a block's hundreds of receivers.
  let p = 0;
  for (let i = 2; i < 14; i++) {
    const c = hex.charCodeAt(i);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (d < 0) return null;
    p = p * 16 + d;
  }
  return p;
}

/** The 48-bit prefix of the 21 address bytes (`41` + 20). */
export function prefixOfBytes(bytes: Uint8Array): number {
  let p = 0;
  for (let i = 1; i <= 6; i++) p = p * 256 + (bytes[i] as number);
  return p;
}

/** Prefixes share a bucket by their top 16 bits: 2^16 buckets, ~17 prefixes each at 1.1M. */
const BUCKETS = 2 ** 16;
const BUCKET_WIDTH = 2 ** 32;
const MAX_PREFIX = BUCKETS * BUCKET_WIDTH;
/** Derivation indexes are stored in a Uint32Array, which would wrap anything larger silently. */
const MAX_INDEX = 2 ** 32;
const isPrefix = (p: number) => Number.isInteger(p) && p >= 0 && p < MAX_PREFIX;
const isIndex = (i: number) => Number.isInteger(i) && i >= 0 && i < MAX_INDEX;

export class AddressPrefixes {
  /** Low 32 bits of the prefixes, bucket after bucket, ascending within a bucket (equal ones side by side). */
  private low: Uint32Array = new Uint32Array(0);
  /** The derivation index of each pair, at the same position as its prefix in `low`. */
  private index: Uint32Array = new Uint32Array(0);
  /**
   * Where each bucket starts in `low` (bucket b holds [start[b], start[b + 1])). Within a bucket a
   * bisection touches one or two cache lines; over the whole array it would touch ~10. 256 KB.
   */
  private start: Uint32Array = new Uint32Array(BUCKETS + 1);
  /**
   * Pairs added since the last merge, none of them in `low`/`index` (their prefix may be): prefix →
   * its index, or its indexes in the rare case that several recent addresses share it (a plain
   * number for the common case: no array per address).
   */
  private readonly recent = new Map<number, number | number[]>();
  /** Pairs in `recent` (its size counts prefixes): the merge comes after `recentLimit` pairs. */
  private recentPairs = 0;

  constructor(private readonly recentLimit = 16_384) {}

  /** (prefix, derivation index) pairs held. */
  get size(): number {
    return this.low.length + this.recentPairs;
  }

  /** Adds the pair; adding a pair already held changes nothing (the caller may re-add a row). */
  add(prefix: number, index: number): void {
    // Outside [0, 2^48) it would sit past the last bucket, where has() never looks.
    if (!isPrefix(prefix)) throw new RangeError(`not a 48-bit address prefix: ${prefix}`);
    if (!isIndex(index)) throw new RangeError(`not a derivation index: ${index}`);
    const r = this.recent.get(prefix);
    if (r === index || (typeof r === 'object' && r.includes(index)) || this.sortedHolds(prefix, index)) return;
    if (r === undefined) this.recent.set(prefix, index);
    else if (typeof r === 'number') this.recent.set(prefix, [r, index]);
    else r.push(index);
    if (++this.recentPairs >= this.recentLimit) this.merge();
  }

  /**
   * Takes a whole array of pairs at once (the loader's first load) in place of adding them one by
   * one; only into an empty set. Sorted by prefix (equal prefixes side by side, their indexes in
   * any order), each pair once. The set keeps `indexes` itself: the caller must not change it.
   */
  load(prefixes: Float64Array, indexes: Uint32Array): void {
    if (this.size > 0) throw new Error('address prefixes: load() is for an empty set');
    if (prefixes.length !== indexes.length) throw new RangeError(`address prefixes: ${prefixes.length} prefixes for ${indexes.length} indexes`);
    let run = 0; // where the current run of equal prefixes started
    for (let i = 0; i < prefixes.length; i++) {
      const p = prefixes[i] as number;
      if (!isPrefix(p) || (i > 0 && p < (prefixes[i - 1] as number))) throw new RangeError('address prefixes: not 48-bit prefixes in ascending order');
      if (i > 0 && p !== prefixes[i - 1]) run = i;
      // A pair twice would be answered twice and counted twice. Runs are almost always one long
      // (two of 1.1M random prefixes are equal with a chance of 0.2 %), so the quadratic scan costs nothing.
      for (let j = run; j < i; j++) if (indexes[j] === indexes[i]) throw new RangeError(`address prefixes: the pair (${p}, ${indexes[i]}) twice`);
    }
    // All built before any is kept: a failure half way (out of memory) must not leave a bucket
    // index over an empty array, which answers true for any prefix, so that add() would never
    // store the addresses the watcher then adds one by one.
    const start = bucketStarts(prefixes);
    // Uint32Array.from keeps the low 32 bits of each (ToUint32): the bucket holds the rest.
    const low = Uint32Array.from(prefixes);
    // Taken over, not copied (4.4 MB at 1.1M addresses, in serve's RSS budget): the loader's array
    // was transferred to this thread and nothing else holds it.
    const index = indexes;
    this.start = start;
    this.low = low;
    this.index = index;
  }

  has(prefix: number): boolean {
    return this.recent.has(prefix) || this.firstInSorted(prefix) >= 0;
  }

  /**
   * The derivation indexes of every address added with this prefix (none: empty): the rows to read
   * and compare, since several addresses may share a prefix.
   */
  indexesOf(prefix: number): number[] {
    const out: number[] = [];
    const r = this.recent.get(prefix);
    if (typeof r === 'number') out.push(r);
    else if (r !== undefined) out.push(...r);
    let i = this.firstInSorted(prefix);
    if (i < 0) return out;
    const want = this.low[i];
    const end = this.start[Math.floor(prefix / BUCKET_WIDTH) + 1] as number;
    for (; i < end && this.low[i] === want; i++) out.push(this.index[i] as number);
    return out;
  }

  /** Whether the merged arrays hold this exact pair. */
  private sortedHolds(prefix: number, index: number): boolean {
    let i = this.firstInSorted(prefix);
    if (i < 0) return false;
    const want = this.low[i];
    const end = this.start[Math.floor(prefix / BUCKET_WIDTH) + 1] as number;
    for (; i < end && this.low[i] === want; i++) if (this.index[i] === index) return true;
    return false;
  }

  /** The first position of the prefix in `low` (the leftmost of equal ones), or -1. */
  private firstInSorted(prefix: number): number {
    const a = this.low;
    const b = Math.floor(prefix / BUCKET_WIDTH);
    if (!(b >= 0 && b < BUCKETS)) return -1;
    const want = prefix - b * BUCKET_WIDTH;
    // Lower bound: the first position whose value is not below `want`.
    let lo = this.start[b] as number;
    let hi = this.start[b + 1] as number;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((a[mid] as number) < want) lo = mid + 1;
      else hi = mid;
    }
    return lo < (this.start[b + 1] as number) && a[lo] === want ? lo : -1;
  }

  /**
   * One pass, bucket by bucket: the recent pairs, by sorted prefix, and the arrays into new arrays
   * (no pair is in both; a prefix may be, and its old pairs then come first).
   */
  private merge(): void {
    const recent = this.recent;
    const fresh = Float64Array.from(recent.keys()).sort();
    const old = this.low;
    const oldIndex = this.index;
    const oldStart = this.start;
    const out = new Uint32Array(old.length + this.recentPairs);
    const outIndex = new Uint32Array(out.length);
    const start = new Uint32Array(BUCKETS + 1);
    let i = 0;
    let j = 0;
    let k = 0;
    for (let b = 0; b < BUCKETS; b++) {
      start[b] = k;
      const oldEnd = oldStart[b + 1] as number;
      const base = b * BUCKET_WIDTH;
      const next = base + BUCKET_WIDTH;
      while (j < fresh.length && (fresh[j] as number) < next) {
        const p = fresh[j] as number;
        const f = p - base;
        while (i < oldEnd && (old[i] as number) <= f) {
          out[k] = old[i] as number;
          outIndex[k++] = oldIndex[i++] as number;
        }
        const r = recent.get(p) as number | number[];
        if (typeof r === 'number') {
          out[k] = f;
          outIndex[k++] = r;
        } else {
          for (const x of r) {
            out[k] = f;
            outIndex[k++] = x;
          }
        }
        j++;
      }
      while (i < oldEnd) {
        out[k] = old[i] as number;
        outIndex[k++] = oldIndex[i++] as number;
      }
    }
    start[BUCKETS] = k;
    this.low = out;
    this.index = outIndex;
    this.start = start;
    recent.clear();
    this.recentPairs = 0;
  }
}

/** The bucket index of a sorted array of prefixes: start[b] = the first position whose prefix is in bucket b or above. */
function bucketStarts(sorted: Float64Array): Uint32Array {
  const start = new Uint32Array(BUCKETS + 1);
  let i = 0;
  for (let b = 0; b <= BUCKETS; b++) {
    const from = b * BUCKET_WIDTH;
    while (i < sorted.length && (sorted[i] as number) < from) i++;
    start[b] = i;
  }
  return start;
}
