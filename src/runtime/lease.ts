/**
 * The worker lease (docs/adr/0023-the-worker-lease.md, docs/adr/0049-the-lease-across-hosts.md):
 * one row that says which process runs the background work (watcher, sweeper, payout worker,
 * webhook dispatcher, scheduled jobs) and until when. A process takes it when it is free or lapsed
 * and renews it every few seconds; another `serve` on the same database serves /v1 only and takes
 * over once the holder stops renewing.
 *
 * Every acquisition increments `token` (a fencing token). The background work writes only through
 * `fenced(db)`: each of its write transactions checks, inside itself, that the row still names
 * this grant (`assertHeld`), so a process that lost the lease while paused (GC, SIGSTOP, a slow
 * disk, a partition) finds out at its next write and writes nothing. What leaves the database (a
 * broadcast) comes after a fenced record of it and a fresh check (`confirm`).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { sql } from 'kysely';
import { systemClock, type Clock } from '../clock.js';
import { engineOf, fencedDb, writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import { databaseClockMs, idleTransactionLimit, tableExists } from '../db/portable.js';
import { AppError } from '../errors.js';

export type LeaseTime = 'database' | 'process';

export interface LeaseOptions {
  /** How long a grant lasts without renewal (default 15 s). */
  ttlMs?: number;
  /** Identifies this process in the lease row and in logs. */
  holder?: string;
  /**
   * Whose clock times the grants: 'database' (the PostgreSQL server's, one clock for every host)
   * or 'process' (this process's Clock). Default: leaseTimeOf (lease-time rule below).
   */
  time?: LeaseTime;
}

export interface LeaseRow {
  holder: string;
  token: number;
  acquired_at: string;
  renewed_at: string;
  expires_at: string;
}

export class LeaseLostError extends Error {
  constructor(holder: string) {
    super(`worker lease no longer held by ${holder}`);
    this.name = 'LeaseLostError';
  }
}

export function defaultHolder(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * The lease-time rule (docs/adr/0049-the-lease-across-hosts.md): on PostgreSQL, where replicas on
 * several hosts share the lease, its times are the database server's; a process on the system
 * clock would otherwise grant itself whatever its own clock's error says. A SQLite file is shared
 * by processes of one host, which share its clock: the process's Clock. A process given another
 * Clock (a test's ManualClock) times the lease with it on both engines, so moving that clock
 * moves the lease.
 */
export function leaseTimeOf(db: Executor, clock: Clock): LeaseTime {
  return engineOf(db) === 'postgres' && clock === systemClock ? 'database' : 'process';
}

/** The lease row and the lease's time, read in one statement (the time even before any row). */
async function readLease(
  db: Executor,
  clock: Clock,
  time: LeaseTime,
  idleLimitMs: number | null,
): Promise<{ row: LeaseRow | undefined; now: Date }> {
  const idle = idleLimitMs === null ? sql`null` : idleTransactionLimit(db, idleLimitMs);
  const r = await sql<LeaseRow & { now_ms: number; idle: unknown }>`
    select l.holder, l.token, l.acquired_at, l.renewed_at, l.expires_at,
           ${time === 'database' ? databaseClockMs(db) : sql`null`} as now_ms, ${idle} as idle
    from (select 1 as one) t left join worker_lease l on l.id = 1`.execute(db);
  const x = r.rows[0];
  const now = time === 'database' ? new Date(Number(x?.now_ms)) : clock.now();
  if (!x || x.holder === null) return { row: undefined, now };
  const { holder, token, acquired_at, renewed_at, expires_at } = x;
  return { row: { holder, token: Number(token), acquired_at, renewed_at, expires_at }, now };
}

export class WorkerLease {
  readonly holder: string;
  readonly ttlMs: number;
  readonly time: LeaseTime;
  private token = 0;
  /**
   * Until when this process may believe it holds the lease, by its own clock: the grant's length
   * from a moment before the grant was asked for, so it ends no later than the grant itself.
   */
  private heldUntil = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    opts: LeaseOptions = {},
  ) {
    this.holder = opts.holder ?? defaultHolder();
    this.ttlMs = opts.ttlMs ?? 15_000;
    this.time = opts.time ?? leaseTimeOf(db, clock);
  }

  /**
   * How long a transaction of the lease holder may sit idle (its process stopped) before the
   * PostgreSQL server ends it: well inside a grant, so the row locks of a stopped holder are gone
   * by the time its grant lapses and another process takes over.
   */
  private get idleLimitMs(): number {
    // At most a minute: no healthy transaction idles that long, and grants of days (tests) would
    // ask the server for more than it takes.
    return Math.min(60_000, Math.max(500, Math.floor(this.ttlMs / 3)));
  }

  /** Takes the lease if it is free, lapsed or already ours; renews it if ours. True when held. */
  async acquireOrRenew(): Promise<boolean> {
    const asked = this.clock.now().getTime();
    const row = await writeTx(this.db, async (trx) => {
      const { row: cur, now } = await readLease(trx, this.clock, this.time, this.idleLimitMs);
      const at = now.toISOString();
      const expires = new Date(now.getTime() + this.ttlMs).toISOString();
      if (cur && cur.holder !== this.holder && cur.expires_at > at) return null;
      if (cur && cur.holder === this.holder && cur.token === this.token && cur.expires_at > at) {
        await trx
          .updateTable('worker_lease')
          .set({ renewed_at: at, expires_at: expires })
          .where('id', '=', 1)
          .execute();
        return { ...cur, renewed_at: at, expires_at: expires };
      }
      // Free, lapsed, or ours from an earlier grant we lost track of: a new grant, a new token.
      const token = (cur?.token ?? 0) + 1;
      const next = { holder: this.holder, token, acquired_at: at, renewed_at: at, expires_at: expires };
      await trx
        .insertInto('worker_lease')
        .values({ id: 1, ...next })
        .onConflict((oc) => oc.column('id').doUpdateSet(next))
        .execute();
      return next;
    });
    if (!row) {
      this.heldUntil = 0;
      this.token = 0;
      return false;
    }
    this.token = row.token;
    this.heldUntil = asked + this.ttlMs;
    return true;
  }

  /**
   * Names this grant (holder and token) in rows the background work claims (webhook deliveries): a
   * claim of an earlier grant, this process's own included, is dead, since its loops ended with it.
   */
  get grant(): string {
    return `${this.holder}#${this.token}`;
  }

  /** This process's belief, without a query: held and not past its expiry by our clock. */
  held(): boolean {
    return this.token > 0 && this.clock.now().getTime() < this.heldUntil;
  }

  /**
   * The fencing check, inside a write transaction: throws LeaseLostError unless the row still
   * names this grant (holder and token) unexpired by the lease's time. A transaction that passes
   * it is ordered before any takeover, or fails: SQLite has one writer; on PostgreSQL the read of
   * the row joins the SERIALIZABLE transaction's conflict checks (database.md), and the server
   * ends the transaction if its process stops inside it past idleLimitMs.
   */
  async assertHeld(trx: Tx): Promise<void> {
    const { row: cur, now } = await readLease(trx, this.clock, this.time, this.idleLimitMs);
    if (!cur || cur.holder !== this.holder || cur.token !== this.token || cur.expires_at <= now.toISOString()) {
      // Every loop stops at its next look at held(), not at its next write.
      this.heldUntil = 0;
      throw new LeaseLostError(this.holder);
    }
  }

  /**
   * Before a step that leaves the database (a broadcast): throws LeaseLostError unless this
   * process believes it holds the lease and the row, read in a transaction of its own, agrees.
   */
  async confirm(): Promise<void> {
    if (!this.held()) throw new LeaseLostError(this.holder);
    await writeTx(this.db, (trx) => this.assertHeld(trx));
  }

  /** `db` for the background work: every write transaction on it runs assertHeld first. */
  fenced(db: Db): Db {
    return fencedDb(db, (trx) => this.assertHeld(trx));
  }

  /** Gives the lease up at once (clean shutdown) so another process need not wait for the TTL. */
  async release(): Promise<void> {
    if (this.token === 0) return;
    const token = this.token;
    this.token = 0;
    this.heldUntil = 0;
    await writeTx(this.db, (trx) =>
      trx
        .updateTable('worker_lease')
        .set({ expires_at: sql<string>`renewed_at` })
        .where('id', '=', 1)
        .where('holder', '=', this.holder)
        .where('token', '=', token)
        .execute(),
    );
  }
}

/** The lease row, or undefined before any process took it (operators: `wallet show`, metrics). */
export async function currentLease(db: Executor): Promise<LeaseRow | undefined> {
  return db
    .selectFrom('worker_lease')
    .select(['holder', 'token', 'acquired_at', 'renewed_at', 'expires_at'])
    .where('id', '=', 1)
    .executeTakeFirst();
}

/** The lease row and whether it is live by the lease's time (the lease-time rule above). */
export async function liveLease(db: Executor, clock: Clock): Promise<{ row: LeaseRow; live: boolean } | undefined> {
  const { row, now } = await readLease(db, clock, leaseTimeOf(db, clock), null);
  return row && { row, live: row.expires_at > now.toISOString() };
}

/**
 * For the commands that change what a running `serve` relies on (`migrate`, `init`; `restore` checks
 * the same with its own lock): refuses while a worker lease is live. A database older than the
 * lease (no such table yet) has none.
 */
export async function assertNoLiveLease(db: Executor, clock: Clock): Promise<void> {
  if (!(await tableExists(db, 'worker_lease'))) return;
  const lease = await liveLease(db, clock);
  if (lease?.live) {
    throw new AppError(
      'invalid_state',
      `The database is in use: the worker lease is held by ${lease.row.holder} until ${lease.row.expires_at}. Stop every paygate serve first`,
    );
  }
}
