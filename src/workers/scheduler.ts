/**
 * Scheduled jobs of `serve` (node-cron 4). Every job skips a tick while its previous run is still
 * going (noOverlap) and logs failures instead of crashing the process; the next tick retries.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Services } from '../services.js';
import { expireInvoices } from './expiry.js';
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
  return [
    { name: 'invoice-expiry', schedule: '*/5 * * * * *', run: () => expireInvoices(s.db, s.clock) },
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
