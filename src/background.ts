/**
 * The background workers `serve` runs under the worker lease (host.ts). Each feature adds its
 * worker here: the chain watcher, the sweeper, the payout worker, the webhook dispatcher. The
 * workers that use the node first make sure it serves this database's chain (chain/identity.ts).
 */
import { ChainGate } from './chain/identity.js';
import { payoutWorkers } from './payouts/worker/worker.js';
import type { WorkerServices } from './services.js';
import { dispatcherWorker } from './webhooks/dispatcher.js';
import type { Worker } from './runtime/worker.js';
import type { WorkerLease } from './runtime/lease.js';
import { sweeperWorker } from './sweeper/worker.js';
import { chainWatcher } from './watcher/watcher.js';

/** `w`, whose ticks wait until the gate has seen the node serve this database's chain. */
function behind(gate: ChainGate, w: Worker): Worker {
  return {
    name: w.name,
    intervalMs: w.intervalMs,
    async tick(signal) {
      await gate.pass();
      return w.tick(signal);
    },
  };
}

export function backgroundWorkers(s: WorkerServices, lease: WorkerLease): Worker[] {
  // Only the two workers that sign get the signer; the others get the services without it.
  const { signer: _signer, ...plain } = s;
  const gate = new ChainGate(plain);
  const onChain = [chainWatcher(plain, lease), ...sweeperWorker(s, lease), ...payoutWorkers(s, lease)].map((w) =>
    behind(gate, w),
  );
  return [...onChain, dispatcherWorker(plain, lease)];
}
