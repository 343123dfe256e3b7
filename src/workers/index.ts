/**
 * The background workers `serve` runs under the worker lease (host.ts). Each feature adds its
 * worker here: the chain watcher, the sweeper, the payout worker, the webhook dispatcher.
 */
import { payoutWorkers } from '../payouts/worker/worker.js';
import type { Services } from '../services.js';
import { dispatcherWorker } from '../webhooks/dispatcher.js';
import type { Worker } from './worker.js';
import type { WorkerLease } from './lease.js';
import { sweeperWorker } from './sweeper.js';
import { chainWatcher } from './watcher.js';

export function backgroundWorkers(s: Services, lease: WorkerLease): Worker[] {
  return [chainWatcher(s, lease), ...sweeperWorker(s, lease), ...payoutWorkers(s, lease), dispatcherWorker(s, lease)];
}
