/**
 * Scheduled jobs that outlast their period (expiry every 5 s after a long outage) or throw: a run
 * never overlaps the previous one, a failing job runs again at the next tick, and what happens is
 * said in serve's own JSON log lines. node-cron's own logger printed colored "[NODE-CRON] [WARN]
 * task still running, new execution blocked by overlap prevention!" lines on the console instead,
 * outside the JSON log and without the job's name.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('scheduled jobs that overlap or throw', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  it('never overlap, run again after a failure, and log to the JSON log only', async () => {
    const console_: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation(
        (...args: unknown[]) => void console_.push(args.map(String).join(' ')),
      );
    }
    const lines: string[] = [];
    const logs = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    let active = 0;
    let most = 0;
    let slowRuns = 0;
    let failing = 0;
    t = await startTestApp({
      logger: createLogger('info', logs),
      workerHost: {
        renewMs: 50,
        workers: () => [],
        jobs: [
          {
            name: 'slow-job',
            schedule: '* * * * * *',
            run: async () => {
              active++;
              most = Math.max(most, active);
              slowRuns++;
              await new Promise((r) => setTimeout(r, 2_200));
              active--;
            },
          },
          {
            name: 'failing-job',
            schedule: '* * * * * *',
            run: async () => {
              failing++;
              throw new Error('boom');
            },
          },
        ],
      },
    });
    await new Promise((r) => setTimeout(r, 4_500));
    await t.app.stop();

    expect(most).toBe(1);
    expect(slowRuns).toBeGreaterThanOrEqual(1);
    expect(failing).toBeGreaterThanOrEqual(3);
    const entries = lines
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; job?: string });
    expect(
      entries.filter((e) => e.msg === 'scheduled job failed' && e.job === 'failing-job').length,
    ).toBeGreaterThanOrEqual(3);
    expect(entries.some((e) => e.level === 40 && e.job === 'slow-job')).toBe(true);
    expect(console_.filter((l) => l.includes('NODE-CRON'))).toEqual([]);
  });
});
