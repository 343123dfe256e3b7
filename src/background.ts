/**
 * The background workers `serve` runs under the worker lease (host.ts). Each feature adds its
 * worker here: the chain watcher, the sweeper, the payout worker, the webhook dispatcher, the mail
 * worker (only with SMTP_URL and MAIL_FROM). The
 * workers that use the node first make sure it serves this database's chain (chain/identity.ts).
 */
import { ChainGate } from './chain/identity.js';
import { payoutWorkers } from './payouts/worker/worker.js';
import type { Services, WorkerServices } from './services.js';
import { dispatcherWorker } from './webhooks/dispatcher.js';
import type { Worker } from './runtime/worker.js';
import type { WorkerLease } from './runtime/lease.js';
import { sweeperWorker } from './sweeper/worker.js';
import { chainWatcher } from './watcher/watcher.js';
import { mailWorkers } from './mail/worker.js';
import type { Job } from './runtime/scheduler.js';
import { expireInvoices } from './invoices/expiry.js';
import { scanHorizon } from './watcher/store.js';
import { pruneDeliveryLog } from './webhooks/service.js';
import { reservesJob } from './reserves/operations.js';
import { keyExpiryJob } from './keys/operations.js';
import { expireRefunds } from './refunds/service.js';

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
  return [...onChain, dispatcherWorker(plain, lease), ...mailWorkers(plain, lease)];
}

/** The scheduled jobs `serve` runs under the worker lease (runtime/scheduler.ts). */
export function scheduledJobs(s: Services): Job[] {
  // Expiry runs against the last scanned block's time, read inside each of its write transactions:
  // until the watcher has scanned past an invoice's expires_at, a payment in an earlier block may
  // still be found, and a rollback moves that time back.
  const expiry = () => expireInvoices(s.db, s.clock, { horizon: scanHorizon });
  return [
    { name: 'invoice-expiry', schedule: '*/5 * * * * *', run: expiry },
    { name: 'webhook-log-prune', schedule: '0 17 3 * * *', run: () => pruneDeliveryLog(s.db, s.clock) },
    // A refund's claim link lasts 30 days: a minute's delay in ending it is nothing.
    { name: 'refund-expiry', schedule: '23 * * * * *', run: () => expireRefunds(s.db, s.clock) },
    reservesJob(s),
    keyExpiryJob(s),
  ];
}
