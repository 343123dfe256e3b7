/**
 * The watch list's first load, on a worker thread. On the million-invoice database it reads 1.1M
 * deposit addresses and decodes each (base58 and its checksum): about 10 s of CPU, which on the
 * event loop took a third of it for those seconds after every start (the API answered between
 * pages at ~1,500 reads/s instead of ~16,000). The worker runs the store's query
 * (everyAddressAfter, built with kysely like every other) on a read-only connection of its own,
 * decodes, sorts the (48-bit prefix, derivation index) pairs by prefix (address-prefixes.ts) and
 * hands both arrays over without a copy (transferred ArrayBuffers); the garbage of the million rows
 * dies with the worker. Later additions are a few rows a tick and stay on the main thread.
 *
 * Like the other workers, its source is plain JavaScript evaluated in the worker (decodeAddress and
 * prefixOfBytes are the functions the main thread uses), so it runs the same under tsx, vitest and
 * dist/.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { everyAddressAfter } from '../addresses/store.js';
import { BASE58, decodeAddress } from '../chain/address.js';
import { prefixOfBytes } from './address-prefixes.js';

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { hash } = require('node:crypto');
const Database = require(workerData.driver);
// Bundlers and tsx may wrap functions in __name(…) to keep their names; nothing to keep here.
var __name = (f) => f;
const decodeAddress = ${decodeAddress.toString()};
const prefixOfBytes = ${prefixOfBytes.toString()};
const sha256 = (b) => hash('sha256', b, 'buffer');
const digits = new Int8Array(128).fill(-1);
for (let i = 0; i < workerData.alphabet.length; i++) digits[workerData.alphabet.charCodeAt(i)] = i;
// A corrupt row fails the load, as it fails the main thread's addressBytes: never left unwatched.
const prefixOfAddress = (address) => {
  const bytes = decodeAddress(address, digits, sha256);
  if (bytes === null) throw new Error('not a TRON address: ' + address);
  return prefixOfBytes(bytes);
};
// The pairs sorted by prefix, each index moved with its prefix (equal prefixes all kept, in any
// order). The plain Float64Array sort cannot carry the indexes, and a comparator sort of a
// permutation costs ~5 times as much; instead a counting sort on the top 16 bits (the set's
// buckets, ~17 pairs each at 1.1M) then an insertion sort inside each bucket: ~90 ms for 1.1M,
// where sorting the bare prefixes took ~165. A crowded bucket (random addresses never make one) is
// sorted through a permutation.
const BUCKET_WIDTH = 2 ** 32;
const sortPairs = (prefixes, indexes, n) => {
  const start = new Uint32Array((1 << 16) + 1);
  for (let i = 0; i < n; i++) start[Math.floor(prefixes[i] / BUCKET_WIDTH) + 1]++;
  for (let b = 0; b < 1 << 16; b++) start[b + 1] += start[b];
  const next = start.slice(0, 1 << 16);
  const outPrefixes = new Float64Array(n);
  const outIndexes = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const k = next[Math.floor(prefixes[i] / BUCKET_WIDTH)]++;
    outPrefixes[k] = prefixes[i];
    outIndexes[k] = indexes[i];
  }
  for (let b = 0; b < 1 << 16; b++) {
    const from = start[b];
    const to = start[b + 1];
    if (to - from <= 64) {
      for (let i = from + 1; i < to; i++) {
        const p = outPrefixes[i];
        const x = outIndexes[i];
        let j = i - 1;
        for (; j >= from && outPrefixes[j] > p; j--) {
          outPrefixes[j + 1] = outPrefixes[j];
          outIndexes[j + 1] = outIndexes[j];
        }
        outPrefixes[j + 1] = p;
        outIndexes[j + 1] = x;
      }
    } else {
      const order = Array.from({ length: to - from }, (_, i) => from + i).sort((a, c) => outPrefixes[a] - outPrefixes[c]);
      const p = order.map((i) => outPrefixes[i]);
      const x = order.map((i) => outIndexes[i]);
      outPrefixes.set(p, from);
      outIndexes.set(x, from);
    }
  }
  return { prefixes: outPrefixes, indexes: outIndexes };
};
const db = new Database(workerData.file, { readonly: true, fileMustExist: true, timeout: 5000 });
try {
  db.pragma('cache_size = -1000');
  const rows = db.prepare(workerData.sql).raw(true);
  let prefixes = new Float64Array(1 << 16);
  let indexes = new Uint32Array(1 << 16);
  let n = 0;
  let last = workerData.after;
  for (const [address, index] of rows.iterate(...workerData.params)) {
    // A Uint32Array would wrap a larger one into another address's index.
    if (!Number.isInteger(index) || index < 0 || index >= 2 ** 32) throw new Error('not a derivation index: ' + index);
    if (n === prefixes.length) {
      const grown = new Float64Array(prefixes.length * 2);
      grown.set(prefixes);
      prefixes = grown;
      const grownIndexes = new Uint32Array(indexes.length * 2);
      grownIndexes.set(indexes);
      indexes = grownIndexes;
    }
    prefixes[n] = prefixOfAddress(address);
    indexes[n++] = index;
    last = index;
  }
  const sorted = sortPairs(prefixes, indexes, n);
  parentPort.postMessage({ prefixes: sorted.prefixes, indexes: sorted.indexes, lastIndex: last, rows: n }, [sorted.prefixes.buffer, sorted.indexes.buffer]);
} catch (e) {
  parentPort.postMessage({ error: String((e && e.message) || e) });
} finally {
  db.close();
}
`;

export interface LoadedWatchlist {
  /** The prefix of each address read, ascending (equal ones side by side: nothing is dropped). */
  prefixes: Float64Array;
  /** The derivation index of each, at the same position (AddressPrefixes.load takes both). */
  indexes: Uint32Array;
  /** The derivation index of the last address read (`after` when none). */
  lastIndex: number;
  /** Addresses read. */
  rows: number;
}

/** Reads the deposit addresses after derivation index `after` on a worker thread. */
export function loadWatchlist(file: string, after: number): Promise<LoadedWatchlist> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // The rows are short-lived: a small young generation keeps the thread's memory small.
  const worker = new Worker(SOURCE, { eval: true, workerData: { file, driver, after, sql: everyAddressAfter.sql, params: everyAddressAfter.params({ after }), alphabet: BASE58 }, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
  return new Promise<LoadedWatchlist>((resolve, reject) => {
    worker.once('message', (m: LoadedWatchlist | { error: string }) => {
      if ('error' in m) reject(new Error(`watch list load failed: ${m.error}`));
      else resolve(m);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the watch list loader exited with code ${code}`)));
  });
}
