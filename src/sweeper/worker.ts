/**
 * The sweeper worker (src/sweeper): only where the wallet is unlocked (serve) and only while this
 * process holds the worker lease. A tick every 3 s (one block): sweeps wait on confirmations.
 */
import type { Services } from '../services.js';
import { Sweeper, type SweeperOptions } from './engine.js';
import type { Worker } from '../runtime/worker.js';
import type { WorkerLease } from '../runtime/lease.js';

export const SWEEPER_WORKER = 'sweeper';

export function sweeperWorker(
  s: Services,
  lease: WorkerLease,
  opts: SweeperOptions & { intervalMs?: number } = {},
): Worker[] {
  if (!s.wallet) return [];
  const sweeper = new Sweeper(s, lease, opts);
  return [{ name: SWEEPER_WORKER, intervalMs: opts.intervalMs ?? 3_000, tick: (signal) => sweeper.tick(signal) }];
}
