/**
 * Failover of the worker lease between two `serve` replicas on one PostgreSQL database, measured
 * `kills` times: once the holder runs its background work, it is SIGKILLed at a random moment of
 * its renewal cycle; the bench then watches the database (the lease row and the chain watcher's
 * cursor, a few queries every 10 ms on a connection of its own) for the other replica to take
 * the lease and for its watcher to record a block. Both moments are the survivor's own timestamps
 * in those rows, so the figures do not depend on how often the bench looks. The killed replica
 * is started again before the next kill.
 */
import pg from 'pg';
import { startReplica, type BenchDatabase, type Replica } from './replica-fleet.js';

export interface Failover {
  /** SIGKILL of the holder → the other replica holds the lease (its acquired_at). */
  leaseMs: number;
  /** SIGKILL → the new holder's chain watcher has committed a scan (the cursor's updated_at). */
  workMs: number;
}

interface Seen {
  holder: string;
  acquired: number;
  expires: number;
  worked: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function look(c: pg.Client): Promise<Seen | null> {
  const r = await c.query<{ holder: string; acquired_at: string; expires_at: string; updated_at: string | null }>(
    `select l.holder, l.acquired_at, l.expires_at, c.updated_at
       from worker_lease l left join chain_cursor c on c.id = 1 where l.id = 1`,
  );
  const row = r.rows[0];
  if (!row) return null;
  return {
    holder: row.holder,
    acquired: Date.parse(row.acquired_at),
    expires: Date.parse(row.expires_at),
    worked: row.updated_at ? Date.parse(row.updated_at) : 0,
  };
}

/** Polls `look` every 10 ms until `ok` holds; throws after `timeoutMs`. */
async function until(c: pg.Client, ok: (s: Seen) => boolean, timeoutMs: number, what: string): Promise<Seen> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await look(c);
    if (s && ok(s)) return s;
    if (Date.now() > deadline) throw new Error(`failover: ${what} not seen within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** The process id in a lease holder `host:pid:nonce`. */
const pidOf = (holder: string) => Number(holder.split(':').at(-2));

export async function measureFailovers(o: {
  db: BenchDatabase;
  /** Two running replicas on `db`; replaced in place as they are killed and started again. */
  replicas: Replica[];
  kills: number;
  ttlMs: number;
  log: (line: string) => void;
}): Promise<Failover[]> {
  const c = new pg.Client({ connectionString: o.db.url });
  await c.connect();
  const runs: Failover[] = [];
  const limit = 10 * o.ttlMs + 30_000;
  try {
    for (let k = 1; k <= o.kills; k++) {
      // Steady state: a live holder among the running replicas, its background work running.
      const pids = new Set(o.replicas.map((r) => r.info.pid));
      const steady = await until(
        c,
        (s) => s.expires > Date.now() && pids.has(pidOf(s.holder)) && s.worked > s.acquired,
        limit,
        'a holder running its background work',
      );
      // Anywhere in the renewal cycle (serve renews every TTL / 5).
      await sleep(Math.random() * (o.ttlMs / 5));
      const victim = o.replicas.findIndex((r) => r.info.pid === pidOf(steady.holder));
      const dead = o.replicas[victim] as Replica;
      const exited = new Promise((r) => dead.child.once('exit', r));
      const killedAt = Date.now();
      dead.child.kill('SIGKILL');
      const taken = await until(
        c,
        (s) => s.holder !== steady.holder && s.acquired >= killedAt,
        limit,
        'the other replica holding the lease',
      );
      const worked = await until(c, (s) => s.worked > taken.acquired, limit, "the new holder's watcher");
      const run = { leaseMs: taken.acquired - killedAt, workMs: worked.worked - killedAt };
      runs.push(run);
      o.log(`kill ${k}: lease taken over after ${run.leaseMs} ms, background work ran again after ${run.workMs} ms`);
      await exited;
      if (k < o.kills) o.replicas[victim] = await startReplica(o.db);
    }
    return runs;
  } finally {
    await c.end();
  }
}
