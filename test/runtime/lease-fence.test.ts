/**
 * The lease across hosts (docs/adr/0049-the-lease-across-hosts.md): the background work's fenced
 * database handle, the lease timed by the PostgreSQL server's clock, and a holder stopped inside a
 * transaction. The fence runs on the suite's engine; the PostgreSQL-specific parts run on
 * PostgreSQL always (a database of their own on the test server).
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.js';
import { openDatabase, UnfencedWriteError, writeTx, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { currentLease, LeaseLostError, WorkerLease } from '../../src/runtime/lease.js';
import { tempDir } from '../helpers/app.js';
import { createPostgresDatabase, openTestDatabase, type TestPostgres } from '../helpers/database.js';

const open: Database[] = [];
const servers: TestPostgres[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  for (const p of servers.splice(0)) await p.drop();
});

async function suiteDatabase(): Promise<Database> {
  const d = await openTestDatabase(path.join(tempDir(), 'fence.db'));
  await migrateToLatest(d.db);
  open.push(d);
  return d;
}

/** A PostgreSQL database, migrated, and a way to open it again as another process would. */
async function postgres(): Promise<{ first: Database; another: () => Database }> {
  const server = await createPostgresDatabase();
  servers.push(server);
  const another = () => {
    const d = openDatabase(server.url);
    open.unshift(d); // closed before the database is dropped
    return d;
  };
  const first = another();
  await migrateToLatest(first.db);
  return { first, another };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A row only the background work writes, to see whether a write landed. */
async function stopReason(d: Database): Promise<string | undefined> {
  return (await d.db.selectFrom('watcher_stop').select('reason').where('id', '=', 1).executeTakeFirst())?.reason;
}

const stopRow = (reason: string) => ({
  id: 1,
  reason,
  height: 1,
  scanned_hash: 'a',
  node_hash: 'b',
  final_height: 1,
  stopped_at: '2026-01-01T00:00:00.000Z',
  resumed_at: null,
  resumed_by: null,
});

describe('the fenced handle of the background work', () => {
  it('refuses a write outside a transaction; a write transaction commits only while the grant is ours', async () => {
    const d = await suiteDatabase();
    const clock = new ManualClock(new Date());
    const a = new WorkerLease(d.db, clock, { holder: 'a', ttlMs: 10_000 });
    expect(await a.acquireOrRenew()).toBe(true);
    const fenced = a.fenced(d.db);

    await expect(fenced.insertInto('watcher_stop').values(stopRow('unfenced')).execute()).rejects.toBeInstanceOf(
      UnfencedWriteError,
    );
    expect(await stopReason(d)).toBeUndefined();
    // Reads pass as on the plain handle.
    expect((await fenced.selectFrom('worker_lease').select('holder').executeTakeFirst())?.holder).toBe('a');

    await writeTx(fenced, (trx) => trx.insertInto('watcher_stop').values(stopRow('while held')).execute());
    expect(await stopReason(d)).toBe('while held');

    // Stalled past the grant; another process takes over: the old holder's transaction aborts
    // before its statement runs, and its local belief drops at once.
    clock.advance(10_001);
    expect(await new WorkerLease(d.db, clock, { holder: 'b', ttlMs: 10_000 }).acquireOrRenew()).toBe(true);
    clock.set(new Date(clock.now().getTime() - 5_000)); // even by a clock that says the grant is live
    await expect(
      writeTx(fenced, (trx) => trx.updateTable('watcher_stop').set({ reason: 'after the takeover' }).execute()),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(a.held()).toBe(false);
    await expect(a.confirm()).rejects.toBeInstanceOf(LeaseLostError);
    expect(await stopReason(d)).toBe('while held');
  });
});

describe('the lease on PostgreSQL, timed by the server', () => {
  it("hosts whose clocks disagree by an hour neither steal a live grant nor wait past the TTL for a dead holder's", async () => {
    const { first, another } = await postgres();
    const ttlMs = 1_500;
    // Process clocks an hour apart; the grants are timed by the server.
    const behind = new ManualClock(new Date(Date.now() - 3_600_000));
    const ahead = new ManualClock(new Date(Date.now() + 3_600_000));
    const a = new WorkerLease(first.db, behind, { holder: 'a', ttlMs, time: 'database' });
    const b = new WorkerLease(another().db, ahead, { holder: 'b', ttlMs, time: 'database' });
    expect(await a.acquireOrRenew()).toBe(true);
    expect(await b.acquireOrRenew()).toBe(false);
    const row = await currentLease(first.db);
    // Server time: within a few seconds of this host's, nowhere near either process clock.
    expect(Math.abs(Date.parse(row!.acquired_at) - Date.now())).toBeLessThan(60_000);

    // A keeps renewing: B never gets it.
    for (let i = 0; i < 4; i++) {
      await sleep(ttlMs / 3);
      expect(await a.acquireOrRenew()).toBe(true);
      expect(await b.acquireOrRenew()).toBe(false);
    }
    // A stops renewing (dies): B takes over once the server says the grant lapsed.
    let tookOver = false;
    const deadline = Date.now() + 20_000;
    while (!tookOver && Date.now() < deadline) {
      await sleep(100);
      tookOver = await b.acquireOrRenew();
    }
    expect(tookOver).toBe(true);
    await expect(writeTx(first.db, (trx) => a.assertHeld(trx))).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('timed by each process instead, the host whose clock is ahead takes a live grant (why the server times it)', async () => {
    const { first } = await postgres();
    const behind = new ManualClock(new Date(Date.now() - 3_600_000));
    const ahead = new ManualClock(new Date(Date.now() + 3_600_000));
    const a = new WorkerLease(first.db, behind, { holder: 'a', ttlMs: 600_000, time: 'process' });
    const b = new WorkerLease(first.db, ahead, { holder: 'b', ttlMs: 600_000, time: 'process' });
    expect(await a.acquireOrRenew()).toBe(true);
    expect(await b.acquireOrRenew()).toBe(true);
  });

  it('is the default on PostgreSQL with the system clock; a ManualClock keeps timing the lease', async () => {
    const { first } = await postgres();
    expect(new WorkerLease(first.db, systemClock).time).toBe('database');
    expect(new WorkerLease(first.db, new ManualClock()).time).toBe('process');
  });

  it("a holder stopped inside a fenced transaction: the server ends it, so the new holder's write does not wait for it, and the stopped one's writes never land", async () => {
    const { first, another } = await postgres();
    const ttlMs = 1_500;
    const a = new WorkerLease(first.db, systemClock, { holder: 'a', ttlMs });
    expect(await a.acquireOrRenew()).toBe(true);
    await writeTx(a.fenced(first.db), (trx) => trx.insertInto('watcher_stop').values(stopRow('before')).execute());

    // A's transaction passes the fence and changes the row (its lock held), then its process
    // stops (the connection sits idle inside the transaction, as under SIGSTOP) until B has
    // written the same row: without the server ending A's transaction, B would wait for A and A
    // for B, and this test would time out.
    let resume!: () => void;
    const resumed = new Promise<void>((r) => (resume = r));
    const stopped = writeTx(a.fenced(first.db), async (trx) => {
      await trx.updateTable('watcher_stop').set({ reason: 'by the stopped holder' }).execute();
      await resumed;
      await trx.updateTable('watcher_stop').set({ node_hash: 'stopped' }).execute();
    });
    const outcome = stopped.then(
      () => 'committed',
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );

    const otherDb = another().db;
    const b = new WorkerLease(otherDb, systemClock, { holder: 'b', ttlMs });
    const deadline = Date.now() + 20_000;
    while (!(await b.acquireOrRenew()) && Date.now() < deadline) await sleep(100);
    expect(b.held()).toBe(true);
    await writeTx(b.fenced(otherDb), (trx) =>
      trx.updateTable('watcher_stop').set({ reason: 'by the new holder' }).execute(),
    );
    resume();
    expect(await outcome).not.toBe('committed');
    const row = await first.db.selectFrom('watcher_stop').select(['reason', 'node_hash']).executeTakeFirst();
    expect(row).toEqual({ reason: 'by the new holder', node_hash: 'b' });
    // The stopped holder's next fenced write fails on the lease, on a fresh connection.
    await expect(
      writeTx(a.fenced(first.db), (trx) => trx.updateTable('watcher_stop').set({ reason: 'late' }).execute()),
    ).rejects.toBeInstanceOf(LeaseLostError);
  }, 30_000);
});
