/**
 * Scheduled jobs of `serve` (node-cron 4). Every job skips a tick while its previous run is still
 * going (noOverlap) and logs failures instead of crashing the process; the next tick retries. The
 * jobs are handed to it (`scheduledJobs` in background.ts): the runtime knows no feature.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Services } from '../services.js';
import { LeaseLostError } from './lease.js';

export interface Job {
  name: string;
  /** Cron expression with seconds. */
  schedule: string;
  run(): Promise<unknown>;
}

export interface Scheduler {
  jobs: readonly string[];
  /** Stops the schedule at once; resolves when the runs in progress have ended. */
  stop(): Promise<void>;
}

/**
 * node-cron's own messages (a run skipped because the previous one still runs, a run missed
 * because the event loop was blocked) as serve's JSON log lines with the job's name. By default
 * node-cron prints them on the console, colored, outside the log and without the job.
 */
function cronLogger(s: Services, job: string) {
  const text = (m: string | Error) => (m instanceof Error ? m.message : m);
  return {
    info: (m: string) => s.logger.info({ job }, `scheduler: ${m}`),
    warn: (m: string) => s.logger.warn({ job }, `scheduler: ${m}`),
    error: (m: string | Error, err?: Error) =>
      s.logger.error({ job, err: err ?? (m instanceof Error ? m : undefined) }, `scheduler: ${text(m)}`),
    debug: (m: string | Error, err?: Error) => s.logger.debug({ job, err }, `scheduler: ${text(m)}`),
  };
}

export function startScheduler(s: Services, jobs: Job[]): Scheduler {
  // Runs in progress. node-cron's destroy() only stops the timer: stop() waits for these, so a
  // shutdown (or a lost lease) does not release the lease and close the database under a job
  // that is half-way (it failed with "driver has already been destroyed", logged as a failed job).
  const running = new Set<Promise<void>>();
  let stopped = false;
  const tasks: ScheduledTask[] = jobs.map((job) =>
    cron.schedule(
      job.schedule,
      () => {
        if (stopped) return;
        const run = (async () => {
          try {
            await job.run();
          } catch (err) {
            if (err instanceof LeaseLostError)
              s.logger.warn({ job: job.name }, 'worker lease lost: scheduled job stopped, its write was not committed');
            else s.logger.error({ err, job: job.name }, 'scheduled job failed');
          }
        })();
        running.add(run);
        void run.finally(() => running.delete(run));
        return run;
      },
      { name: job.name, noOverlap: true, logger: cronLogger(s, job.name) },
    ),
  );
  return {
    jobs: jobs.map((j) => j.name),
    async stop() {
      stopped = true;
      for (const t of tasks) await t.destroy();
      await Promise.all([...running]);
    },
  };
}
