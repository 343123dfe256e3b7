/**
 * The watch list's first load, on a worker thread. On the million-invoice database it reads 1.1M
 * deposit addresses and decodes each (base58 and its checksum): about 10 s of CPU, which on the
 * event loop took a third of it for those seconds after every start (the API answered between
 * pages at ~1,500 reads/s instead of ~16,000). The worker runs the store's query
 * (everyAddressAfter, built with kysely like every other) on a read-only connection of its own, decodes, sorts and dedupes the 48-bit prefixes (address-prefixes.ts) and hands the
 * array over without a copy (a transferred ArrayBuffer); the garbage of the million rows dies
 * with the worker. Later additions are a few rows a tick and stay on the main thread.
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
const db = new Database(workerData.file, { readonly: true, fileMustExist: true, timeout: 5000 });
try {
  db.pragma('cache_size = -1000');
  const rows = db.prepare(workerData.sql).raw(true);
  let prefixes = new Float64Array(1 << 16);
  let n = 0;
  let last = workerData.after;
  for (const [address, index] of rows.iterate(...workerData.params)) {
    if (n === prefixes.length) {
      const grown = new Float64Array(prefixes.length * 2);
      grown.set(prefixes);
      prefixes = grown;
    }
    prefixes[n++] = prefixOfAddress(address);
    last = index;
  }
  const sorted = prefixes.subarray(0, n).sort();
  let m = 0;
  for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[m++] = sorted[i];
  const out = sorted.slice(0, m);
  parentPort.postMessage({ prefixes: out, lastIndex: last, rows: n }, [out.buffer]);
} catch (e) {
  parentPort.postMessage({ error: String((e && e.message) || e) });
} finally {
  db.close();
}
`;

export interface LoadedWatchlist {
  /** Distinct prefixes, ascending. */
  prefixes: Float64Array;
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
