/** The scheduler runs jobs on their cron schedule, survives a failing job, and stops. */
import { describe, expect, it, vi } from 'vitest';
import type { Services } from '../../src/services.js';
import { startScheduler } from '../../src/runtime/scheduler.js';
import { scheduledJobs } from '../../src/background.js';

describe('scheduler', () => {
  it('runs every job, logs failures without stopping, and stops on request', async () => {
    const errors: unknown[] = [];
    const services = { logger: { error: (o: unknown) => errors.push(o) } } as unknown as Services;
    let runs = 0;
    const s = startScheduler(services, [
      { name: 'count', schedule: '* * * * * *', run: async () => void runs++ },
      { name: 'fail', schedule: '* * * * * *', run: async () => Promise.reject(new Error('boom')) },
    ]);
    expect(s.jobs).toEqual(['count', 'fail']);
    await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(2), { timeout: 5000, interval: 50 });
    expect(errors.length).toBeGreaterThanOrEqual(1);
    await s.stop();
    const after = runs;
    await new Promise((r) => setTimeout(r, 1200));
    expect(runs).toBe(after);
  });

  it('schedules invoice expiry in serve', () => {
    expect(scheduledJobs({} as Services).map((j) => j.name)).toContain('invoice-expiry');
  });
});
