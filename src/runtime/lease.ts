/**
 * The worker lease (docs/adr/0023-the-worker-lease.md): one row that says which process runs the
 * background work (watcher, sweeper, payout worker, webhook dispatcher, scheduled jobs) and until
 * when. A process takes it when it is free or lapsed and renews it every few seconds; a second
 * `serve` on the same database serves /v1 only and takes over once the holder stops renewing.
 *
 * Every acquisition increments `token` (a fencing token). A worker about to do something that must
 * not happen twice (signing a payout, booking a sweep) calls `assertHeld(trx)` inside the write
 * transaction that records it: a process that lost the lease while paused (GC, SIGSTOP, a slow
 * disk) finds out there, before it acts, instead of racing the new holder.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import { tableExists } from '../db/portable.js';
import { AppError } from '../errors.js';

export interface LeaseOptions {
  /** How long a grant lasts without renewal (default 15 s). */
  ttlMs?: number;
  /** Identifies this process in the lease row and in logs. */
  holder?: string;
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

export class WorkerLease {
  readonly holder: string;
  readonly ttlMs: number;
  private token = 0;
  /** Until when this process may believe it holds the lease (its own clock, with no margin lost). */
  private heldUntil = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    opts: LeaseOptions = {},
  ) {
    this.holder = opts.holder ?? defaultHolder();
    this.ttlMs = opts.ttlMs ?? 15_000;
  }

  /** Takes the lease if it is free, lapsed or already ours; renews it if ours. True when held. */
  async acquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const expires = new Date(now.getTime() + this.ttlMs).toISOString();
    const at = now.toISOString();
    const row = await writeTx(this.db, async (trx) => {
      const cur = await currentLease(trx);
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
    this.heldUntil = now.getTime() + this.ttlMs;
    return true;
  }

  /** This process's belief, without a query: held and not past its expiry by our clock. */
  held(): boolean {
    return this.token > 0 && this.clock.now().getTime() < this.heldUntil;
  }

  /** Inside a write transaction: throws LeaseLostError unless the row still names this grant. */
  async assertHeld(trx: Executor): Promise<void> {
    const cur = await currentLease(trx);
    const now = this.clock.now().toISOString();
    if (!cur || cur.holder !== this.holder || cur.token !== this.token || cur.expires_at <= now)
      throw new LeaseLostError(this.holder);
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

/**
 * For the commands that change what a running `serve` relies on (`migrate`, `init`; `restore` checks
 * the same with its own lock): refuses while a worker lease is live. A database older than the
 * lease (no such table yet) has none.
 */
export async function assertNoLiveLease(db: Executor, now: Date): Promise<void> {
  if (!(await tableExists(db, 'worker_lease'))) return;
  const lease = await currentLease(db);
  if (lease && lease.expires_at > now.toISOString()) {
    throw new AppError(
      'invalid_state',
      `The database is in use: the worker lease is held by ${lease.holder} until ${lease.expires_at}. Stop every paygate serve first`,
    );
  }
}
