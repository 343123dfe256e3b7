/**
 * A scheduled job (invoice expiry every 5 s, the nightly webhook-log prune) that is running when
 * `serve` gets SIGTERM. node-cron's destroy() does not wait for the run in progress: the shutdown
 * released the worker lease and closed the database under it, and the job then failed with
 * "driver has already been destroyed", logged as `scheduled job failed`.
 * Shutdown stops the jobs at a safe point as it does the worker loops: it waits for the run.
 */
import { sql } from 'kysely';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startTestApp } from '../helpers/app.js';

describe('a scheduled job running at shutdown', () => {
  it('is waited for: it finishes its database work before the database closes, and nothing is logged as failed', async () => {
    const lines: string[] = [];
    const logs = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let finished = false;
    let ended!: () => void;
    const jobEnded = new Promise<void>((r) => (ended = r));
    const t = await startTestApp({
      logger: createLogger('info', logs),
      workerHost: {
        renewMs: 50,
        workers: () => [],
        jobs: [
          {
            name: 'slow-job',
            schedule: '* * * * * *',
            run: async () => {
              started();
              try {
                await gate;
                // The job's own unit of work, after the wait.
                await sql`select count(*) from invoices`.execute(t.app.services.db);
                finished = true;
              } finally {
                ended();
              }
            },
          },
        ],
      },
    });
    await running;
    const stopped = t.app.stop().then(() => finished);
    setTimeout(release, 300);
    // When stop() resolves, the job has done its work (the database was still open for it).
    expect(await stopped).toBe(true);
    await jobEnded;
    await new Promise((r) => setTimeout(r, 50));
    expect(lines.join('')).not.toContain('scheduled job failed');
  });
});
