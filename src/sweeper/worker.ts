/**
 * The sweeper worker (src/sweeper): only where the wallet is unlocked (serve) and only while this
 * process holds the worker lease. A tick every 3 s (one block): sweeps wait on confirmations.
 */
import type { WorkerServices } from '../services.js';
import { Sweeper, type SweeperOptions } from './engine.js';
import type { Worker } from '../runtime/worker.js';
import type { WorkerLease } from '../runtime/lease.js';

export const SWEEPER_WORKER = 'sweeper';

export function sweeperWorker(
  s: WorkerServices,
  lease: WorkerLease,
  opts: SweeperOptions & { intervalMs?: number } = {},
): Worker[] {
  if (!s.signer) return [];
  const sweeper = new Sweeper(s, s.signer, lease, opts);
  return [{ name: SWEEPER_WORKER, intervalMs: opts.intervalMs ?? 3_000, tick: (signal) => sweeper.tick(signal) }];
}
