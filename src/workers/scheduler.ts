/**
 * Scheduled jobs of `serve` (node-cron 4). Every job skips a tick while its previous run is still
 * going (noOverlap) and logs failures instead of crashing the process; the next tick retries.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Services } from '../services.js';
import { expireInvoices } from './expiry.js';
import { scanHorizon } from './watcher-store.js';
import { pruneDeliveryLog } from '../webhooks/service.js';

export interface Job {
  name: string;
  /** Cron expression with seconds. */
  schedule: string;
  run(): Promise<unknown>;
}

export interface Scheduler {
  jobs: readonly string[];
  stop(): Promise<void>;
}

export function defaultJobs(s: Services): Job[] {
  // Expiry runs against the last scanned block's time: until the watcher has scanned past an
  // invoice's expires_at, a payment in an earlier block may still be found (DESIGN §5).
  const expiry = async () => expireInvoices(s.db, s.clock, { horizon: (await scanHorizon(s.db)) ?? new Date(0) });
  return [
    { name: 'invoice-expiry', schedule: '*/5 * * * * *', run: expiry },
    { name: 'webhook-log-prune', schedule: '0 17 3 * * *', run: () => pruneDeliveryLog(s.db, s.clock) },
  ];
}

export function startScheduler(s: Services, jobs: Job[] = defaultJobs(s)): Scheduler {
  const tasks: ScheduledTask[] = jobs.map((job) =>
    cron.schedule(
      job.schedule,
      async () => {
        try {
          await job.run();
        } catch (err) {
          s.logger.error({ err, job: job.name }, 'scheduled job failed');
        }
      },
      { name: job.name, noOverlap: true },
    ),
  );
  return {
    jobs: jobs.map((j) => j.name),
    async stop() {
      for (const t of tasks) await t.destroy();
    },
  };
}
