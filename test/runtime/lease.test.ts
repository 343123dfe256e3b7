/** The worker lease: one holder at a time, takeover after lapse, fencing, clean release. */
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.js';
import { writeTx, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import type { Services } from '../../src/services.js';
import { startWorkerHost } from '../../src/runtime/host.js';
import type { Worker } from '../../src/runtime/worker.js';
import { currentLease, LeaseLostError, WorkerLease } from '../../src/runtime/lease.js';
import { tempDir } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';

const open: Database[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
});

async function database(): Promise<Database> {
  const d = await openTestDatabase(path.join(tempDir(), 'lease.db'));
  await migrateToLatest(d.db);
  open.push(d);
  return d;
}

describe('worker lease', () => {
  it('grants one holder, refuses a second until the grant lapses, then fences the old holder', async () => {
    const { db } = await database();
    const clock = new ManualClock('2026-05-01T00:00:00Z');
    const a = new WorkerLease(db, clock, { holder: 'a', ttlMs: 10_000 });
    const b = new WorkerLease(db, clock, { holder: 'b', ttlMs: 10_000 });
    expect(await a.acquireOrRenew()).toBe(true);
    expect(await b.acquireOrRenew()).toBe(false);
    clock.advance(9_000);
    expect(await a.acquireOrRenew()).toBe(true); // renewed: valid until t+19 s
    clock.advance(9_000);
    expect(await b.acquireOrRenew()).toBe(false);
    await writeTx(db, (trx) => a.assertHeld(trx));

    clock.advance(11_000); // a stalled past its grant
    expect(a.held()).toBe(false);
    expect(await b.acquireOrRenew()).toBe(true);
    expect((await currentLease(db))?.token).toBe(2);
    await expect(writeTx(db, (trx) => a.assertHeld(trx))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await a.acquireOrRenew()).toBe(false);
  });

  it('release hands the lease over at once', async () => {
    const { db } = await database();
    const clock = new ManualClock();
    const a = new WorkerLease(db, clock, { holder: 'a' });
    const b = new WorkerLease(db, clock, { holder: 'b' });
    await a.acquireOrRenew();
    await a.release();
    expect(await b.acquireOrRenew()).toBe(true);
  });
});

describe('worker host', () => {
  it('runs workers in the lease holder only and hands them over when it stops', async () => {
    const { db } = await database();
    const logger = createLogger('silent');
    const ticks = { a: 0, b: 0 };
    const counting = (who: 'a' | 'b') => (): Worker[] => [
      { name: 'count', intervalMs: 10, tick: async () => void ticks[who]++ },
    ];
    const services = { db, clock: systemClock, logger } as unknown as Services;
    const hostA = startWorkerHost(services, { holder: 'a', ttlMs: 400, renewMs: 50, workers: counting('a'), jobs: [] });
    await vi.waitFor(() => expect(ticks.a).toBeGreaterThan(3), { timeout: 5000, interval: 20 });
    const hostB = startWorkerHost(services, { holder: 'b', ttlMs: 400, renewMs: 50, workers: counting('b'), jobs: [] });
    await new Promise((r) => setTimeout(r, 300));
    expect(ticks.b).toBe(0);
    expect(hostA.active()).toBe(true);
    expect(hostB.active()).toBe(false);

    await hostA.stop();
    const stoppedAt = ticks.a;
    await vi.waitFor(() => expect(ticks.b).toBeGreaterThan(3), { timeout: 5000, interval: 20 });
    expect(ticks.a).toBe(stoppedAt);
    expect((await currentLease(db))?.holder).toBe('b');
    await hostB.stop();
  });
});
