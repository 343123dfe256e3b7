/**
 * The watcher's set of deposit addresses, kept compact: each address is reduced to its 48-bit
 * prefix (the 6 bytes after `41`). Prefixes are grouped in 2^16 buckets by their top 16 bits, and
 * each bucket holds the low 32 bits of its prefixes, sorted, in one shared Uint32Array: 4 bytes an
 * address (the bucket says the rest), where the Map of strings it replaced held ~290, so 2.2
 * million addresses fit in 9 MB instead of 600. A lookup bisects inside its bucket.
 *
 * A hit is only a candidate: another address may share the prefix (by chance about n / 2^48 per
 * transfer looked up, or on purpose: anyone can send to a look-alike of a published address), so
 * the watcher confirms hits against deposit_addresses before crediting anything. A miss is
 * certain: every added address answers true.
 *
 * Addresses arrive in derivation order, which is random in prefix order. Inserting each into the
 * sorted array would move half of it; they wait in a small hashed set instead and are merged in
 * once it holds `recentLimit` of them, one pass over the array per `recentLimit` additions.
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

export class AddressPrefixes {
  /** Low 32 bits of the distinct prefixes, bucket after bucket, ascending within a bucket. */
  private low: Uint32Array = new Uint32Array(0);
  /**
   * Where each bucket starts in `low` (bucket b holds [start[b], start[b + 1])). Within a bucket a
   * bisection touches one or two cache lines; over the whole array it would touch ~10. 256 KB.
   */
  private start: Uint32Array = new Uint32Array(BUCKETS + 1);
  /** Prefixes added since the last merge, none of them in `low`. */
  private readonly recent = new Set<number>();

  constructor(private readonly recentLimit = 16_384) {}

  /** Distinct prefixes held. */
  get size(): number {
    return this.low.length + this.recent.size;
  }

  add(prefix: number): void {
    // Outside [0, 2^48) it would sit past the last bucket, where has() never looks.
    if (!Number.isInteger(prefix) || prefix < 0 || prefix >= MAX_PREFIX) throw new RangeError(`not a 48-bit address prefix: ${prefix}`);
    if (this.has(prefix)) return;
    this.recent.add(prefix);
    if (this.recent.size >= this.recentLimit) this.merge();
  }

  /**
   * Takes a whole sorted, duplicate-free array at once (the loader's first load) in place of
   * adding its prefixes one by one; only into an empty set.
   */
  load(sorted: Float64Array): void {
    if (this.size > 0) throw new Error('address prefixes: load() is for an empty set');
    for (let i = 0; i < sorted.length; i++) {
      const p = sorted[i] as number;
      if (!Number.isInteger(p) || p < 0 || p >= MAX_PREFIX || (i > 0 && p <= (sorted[i - 1] as number))) throw new RangeError('address prefixes: not sorted distinct 48-bit prefixes');
    }
    // Both built before either is kept: a failure half way (out of memory) must not leave a
    // bucket index over an empty array, which answers true for any prefix, so that add() would
    // never store the addresses the watcher then adds one by one.
    const start = bucketStarts(sorted);
    // Uint32Array.from keeps the low 32 bits of each (ToUint32): the bucket holds the rest.
    const low = Uint32Array.from(sorted);
    this.start = start;
    this.low = low;
  }

  has(prefix: number): boolean {
    return this.recent.has(prefix) || this.inSorted(prefix);
  }

  private inSorted(prefix: number): boolean {
    const a = this.low;
    const b = Math.floor(prefix / BUCKET_WIDTH);
    if (!(b >= 0 && b < BUCKETS)) return false;
    const want = prefix - b * BUCKET_WIDTH;
    let lo = this.start[b] as number;
    let hi = (this.start[b + 1] as number) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = a[mid] as number;
      if (v < want) lo = mid + 1;
      else if (v > want) hi = mid - 1;
      else return true;
    }
    return false;
  }

  /** One pass, bucket by bucket: the sorted recent prefixes and the array into a new array (the two are disjoint). */
  private merge(): void {
    const fresh = Float64Array.from(this.recent).sort();
    const old = this.low;
    const oldStart = this.start;
    const out = new Uint32Array(old.length + fresh.length);
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
        const f = (fresh[j] as number) - base;
        while (i < oldEnd && (old[i] as number) < f) out[k++] = old[i++] as number;
        out[k++] = f;
        j++;
      }
      while (i < oldEnd) out[k++] = old[i++] as number;
    }
    start[BUCKETS] = k;
    this.low = out;
    this.start = start;
    this.recent.clear();
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
