/**
 * Deposit address derivation: how fast the pool fills from empty on the worker thread (BIP32
 * derivation and encoding), what it costs the event loop (the main thread's share: the one address
 * per batch it re-derives, the bookkeeping) and in all, per address; and the event-loop delay
 * meanwhile. Invoice creation sustained past the pool is bounded by this rate.
 *
 *   npx tsx bench/addresses.ts [--count 4096] [--rounds 3] [--batch 256]
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { DepositKeyChain, publicInfoOf } from '../src/wallet/hd.js';
import { DepositAddressPool, SERVE_POOL_BATCH } from '../src/wallet/pool.js';
import { summary } from './lib/summary.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const count = Number(arg('count', '4096'));
const rounds = Number(arg('rounds', '3'));
/** Addresses per worker request: serve's by default. */
const batchSize = Number(arg('batch', String(SERVE_POOL_BATCH)));
const phrase = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const chain = new DepositKeyChain(publicInfoOf(phrase).depositXpub);

interface Round {
  perSecond: number;
  mainUs: number;
  cpuUs: number;
  delayP99Ms: number;
}

async function round(from: number): Promise<Round> {
  const pool = new DepositAddressPool(chain, { ahead: count, batch: batchSize });
  await new Promise((r) => setTimeout(r, 200)); // the worker thread has started before the clock starts
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const elu = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  delay.enable();
  pool.moveFloor(from);
  await pool.fill();
  delay.disable();
  const ms = performance.now() - t0;
  const busy = performance.eventLoopUtilization(elu).active;
  const used = process.cpuUsage(cpu);
  if (pool.workerFailure || pool.size !== count)
    throw new Error(`pool failed: ${pool.workerFailure}, ${pool.size} addresses`);
  for (const i of [from, from + count - 1])
    if (pool.addressAt(i) !== chain.addressAt(i)) throw new Error(`wrong address at ${i}`);
  await pool.stop();
  return {
    perSecond: (count / ms) * 1000,
    mainUs: (busy / count) * 1000,
    cpuUs: (used.user + used.system) / count,
    delayP99Ms: delay.percentile(99) / 1e6,
  };
}

const results: Round[] = [];
for (let r = 0; r < rounds; r++) {
  const x = await round(r * count);
  results.push(x);
  console.log(
    `round ${r + 1}: ${Math.round(x.perSecond)}/s, main thread ${x.mainUs.toFixed(1)} µs/address, all threads ${x.cpuUs.toFixed(0)} µs/address, event-loop delay p99 ${x.delayP99Ms.toFixed(1)} ms`,
  );
}
const median = (f: (r: Round) => number) =>
  results.map(f).sort((a, b) => a - b)[Math.floor(results.length / 2)] as number;
console.log(`addresses: ${count} per round in batches of ${batchSize}, median of ${rounds}`);
summary({ metric: 'addresses derived', value: `${Math.round(median((r) => r.perSecond)).toLocaleString('en-US')}/s` });
summary({ metric: 'address: main-thread CPU', value: `${median((r) => r.mainUs).toFixed(1)} µs` });
summary({ metric: 'address: CPU of all threads', value: `${median((r) => r.cpuUs).toFixed(0)} µs` });
