/**
 * The chain watcher's watch list at a million invoices: memory and lookup time of the former Map
 * (`41…` hex → address, merchant, user: what release 3 kept) against the prefix set that replaced
 * it (48-bit prefixes as the low 32 bits of each in one sorted Uint32Array under a bucket index of the top 16, plus a small recent set: address-prefixes.ts).
 *
 * Memory is heapUsed + arrayBuffers (a typed array's bytes live outside the V8 heap) after a full
 * GC, before and after building each. Lookups: as many receivers as the list holds, half of them
 * watched, in random order. Loading: the per-address cost of reading a base58 row (TronWeb's
 * toHexAddress before, addressBytes now) on a sample, since TronWeb over 1.1M would take a minute.
 * Run: npx tsx bench/watchlist-memory.ts [addresses=1100000]
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { addressBytes, fromHexAddress, toHexAddress } from '../src/chain/address.js';
import { prefixOfBytes, prefixOfHex } from '../src/workers/address-prefixes.js';
import { Watchlist, type WatchedAddress } from '../src/workers/chain-match.js';
import { summary } from './lib/summary.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  // Memory figures need a forced GC: run again with it exposed.
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', import.meta.filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const N = Number(process.argv[2] ?? 1_100_000);
/** Permanent user addresses among them (they carry an external user id). */
const USERS = Math.round(N / 11);
const MB = (b: number) => `${(b / 2 ** 20).toFixed(1)} MB`;

function used(): number {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Random `41…` hex addresses, built as the watcher would see them. */
const hexes = Array.from({ length: N }, () => `41${randomBytes(20).toString('hex')}`);
const merchants = Array.from({ length: 50 }, () => randomUUID());

/** A new flat string with the same text (not a slice or a reference to another string). */
const fresh = (s: string) => Buffer.from(s, 'latin1').toString('latin1');

function buildMap(): Map<string, WatchedAddress> {
  const m = new Map<string, WatchedAddress>();
  for (let i = 0; i < N; i++) {
    const hex = hexes[i] as string;
    // Flat strings of their own per row, as toHexAddress and SQLite rows give them.
    m.set(fresh(hex), { address: fresh(`T${hex.slice(9)}`), derivationIndex: i, merchantId: fresh(merchants[i % 50] as string), externalUserId: i < USERS ? fresh(`user-${i}`) : null });
  }
  return m;
}

function buildPrefixes(): Watchlist {
  const w = new Watchlist();
  hexes.forEach((hex, i) => w.prefixes.add(prefixOfHex(hex) as number, i));
  return w;
}

/** µs per lookup over `probes` (half watched). */
function timeLookups(probes: string[], has: (hex: string) => boolean): number {
  let hits = 0;
  const t = performance.now();
  for (const p of probes) if (has(p)) hits++;
  const us = ((performance.now() - t) * 1000) / probes.length;
  if (hits < probes.length / 2) throw new Error(`only ${hits} hits`);
  return us;
}

const probes = hexes.map((h, i) => (i % 2 === 0 ? h : `41${randomBytes(20).toString('hex')}`)).sort(() => Math.random() - 0.5);

let base = used();
let t = performance.now();
let map: Map<string, WatchedAddress> | null = buildMap();
const mapBuildS = (performance.now() - t) / 1000;
const mapBytes = used() - base;
const mapUs = timeLookups(probes, (h) => map!.has(h));
map = null;

base = used();
t = performance.now();
let watch: Watchlist | null = buildPrefixes();
const setBuildS = (performance.now() - t) / 1000;
const setBytes = used() - base;
const setUs = timeLookups(probes, (h) => watch!.mayHold(h));
const size = watch.prefixes.size;
watch = null;

const sample = hexes.slice(0, 20_000).map(fromHexAddress);
t = performance.now();
for (const a of sample) toHexAddress(a);
const tronwebUs = ((performance.now() - t) * 1000) / sample.length;
t = performance.now();
for (const a of sample) prefixOfBytes(addressBytes(a));
const decodeUs = ((performance.now() - t) * 1000) / sample.length;

console.log(`${N} addresses (${USERS} with a user id); load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`Map:       ${MB(mapBytes)} (${(mapBytes / N).toFixed(0)} B an address), built in ${mapBuildS.toFixed(2)} s, lookup ${mapUs.toFixed(3)} µs`);
console.log(`prefixes:  ${MB(setBytes)} (${(setBytes / N).toFixed(1)} B an address, ${size} prefix → index pairs), built in ${setBuildS.toFixed(2)} s, lookup ${setUs.toFixed(3)} µs`);
console.log(`reading a base58 row: toHexAddress ${tronwebUs.toFixed(1)} µs, addressBytes ${decodeUs.toFixed(1)} µs`);
summary({ metric: `watch list of ${N} addresses`, value: `${MB(setBytes)} (Map: ${MB(mapBytes)})` });
summary({ metric: 'watch list lookup', value: `${setUs.toFixed(2)} µs (Map: ${mapUs.toFixed(2)} µs)` });
