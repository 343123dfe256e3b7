/**
 * The background workers `serve` runs under the worker lease (host.ts). Each feature adds its
 * worker here: the chain watcher, the sweeper, the payout worker, the webhook dispatcher.
 */
import type { Services } from '../services.js';
import type { Worker } from './host.js';
import type { WorkerLease } from './lease.js';
import { sweeperWorker } from './sweeper.js';

export function backgroundWorkers(s: Services, lease: WorkerLease): Worker[] {
  return [...sweeperWorker(s, lease)];
}
