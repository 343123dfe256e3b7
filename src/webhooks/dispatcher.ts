/**
 * The webhook dispatcher: a worker of `serve`, under the worker lease. Each round claims, in one
 * write transaction, the oldest pending delivery of each merchant that is due (so a merchant's
 * later event waits while an earlier one is retrying) and, after commit, POSTs them concurrently,
 * at most `concurrency` at once and one per merchant (a slow merchant holds one slot, never another
 * merchant's queue). Everything lives in the database, so a restart loses nothing: an unfinished
 * claim is taken over by the next grant of the lease (another process, or this one once it
 * holds the lease again).
 *
 * Commits are the cost (synchronous=FULL: an fsync each), so the worker saves them two ways
 * (docs/adr/0004-group-commit.md): results that finish while another commit is in
 * flight are written together, each in its own savepoint (group commit); and a merchant's slot is
 * a lane: the transaction that records its attempt also claims its next due delivery, in order,
 * for up to LANE_RUN deliveries, after which the slot goes back to the claim round (fairness).
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Services } from '../services.js';
import { writeTx, type Db, type Tx } from '../db/database.js';
import { GroupCommit } from '../db/group-commit.js';
import type { Worker } from '../runtime/worker.js';
import { LeaseLostError, type WorkerLease } from '../runtime/lease.js';
import { signingSecrets } from './endpoints.js';
import { nextAttemptAt, verdictOf } from './schedule.js';
import { webhookHeaders } from './signing.js';
import { claim, dueHeads, nextDue, recordAttempt, releaseClaim, type ClaimedDelivery } from './store.js';
import { DEFAULT_TIMEOUT_MS, postWebhook, type PostOptions, type PostResult } from './transport.js';

export const DISPATCHER_NAME = 'webhook-dispatcher';

export interface DispatcherOptions {
  /** Deliveries in flight at once (one per merchant); default 8. */
  concurrency?: number;
  /** How often a round looks for newly due deliveries while others are in flight; default 1 s. */
  pollMs?: number;
  timeoutMs?: number;
  /** Jitter source, [0, 1); default Math.random. */
  random?: () => number;
  resolve?: PostOptions['resolve'];
}

type Lease = Pick<WorkerLease, 'grant' | 'held' | 'assertHeld'>;

/** Deliveries a merchant's lane makes back to back before its slot goes back to the claim round. */
export const LANE_RUN = 32;

/** The JSON body: the event as recorded (data is the stored JSON text, sent byte for byte). */
export function eventBody(e: { id: string; type: string; created_at: string; data: string }): string {
  return `{"id":${JSON.stringify(e.id)},"type":${JSON.stringify(e.type)},"created_at":${JSON.stringify(e.created_at)},"data":${e.data}}`;
}

export class WebhookDispatcher {
  /** The lane of each merchant in flight: one per merchant. */
  private readonly inflight = new Map<string, Promise<void>>();
  /** Runs at most `concurrency` deliveries (lanes) at once. */
  private readonly slots: LimitFunction;
  private readonly pollMs: number;
  private readonly timeoutMs: number;
  private readonly random: () => number;
  /** Group commit of attempt results (and the next claims of their lanes). */
  private readonly results: GroupCommit;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly lease: Lease,
    private readonly logger: Logger,
    private readonly opts: DispatcherOptions = {},
  ) {
    this.slots = pLimit(opts.concurrency ?? 8);
    this.pollMs = opts.pollMs ?? 1_000;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.random = opts.random ?? Math.random;
    this.results = new GroupCommit(db);
  }

  worker(intervalMs = 1_000): Worker {
    return { name: DISPATCHER_NAME, intervalMs, tick: (signal) => this.run(signal) };
  }

  /** One round for tests: claims what is due now, delivers it, resolves when all attempts are written. */
  async dispatchDue(signal: AbortSignal = new AbortController().signal): Promise<number> {
    const claimed = await this.claimDue();
    await Promise.all(claimed.map((c) => this.slots(() => this.deliver(c, signal, false))));
    return claimed.length;
  }

  /**
   * The worker's tick: keeps the pool busy until nothing is in flight and nothing is due. It
   * returns only with nothing in flight, so stopping the host waits for (aborted) requests.
   */
  private async run(signal: AbortSignal): Promise<boolean> {
    try {
      while (!signal.aborted && this.lease.held()) {
        const free = this.slots.concurrency - this.slots.activeCount - this.slots.pendingCount;
        if (free > 0) for (const c of await this.claimDue(free)) this.start(c, signal);
        if (this.inflight.size === 0) return false;
        await this.nextChange(signal);
      }
      return false;
    } finally {
      // Also when a claim failed (database busy): no request outlives the tick that started it.
      await Promise.allSettled([...this.inflight.values()]);
    }
  }

  private start(c: ClaimedDelivery, signal: AbortSignal): void {
    const p = this.slots(() => this.lane(c, signal))
      .catch((err: unknown) =>
        err instanceof LeaseLostError
          ? this.logger.warn({ merchant: c.merchant_id }, 'worker lease lost: webhook attempt not recorded')
          : this.logger.error({ err, merchant: c.merchant_id }, 'webhook delivery could not be recorded'),
      )
      .finally(() => this.inflight.delete(c.merchant_id));
    this.inflight.set(c.merchant_id, p);
  }

  /** One merchant's deliveries in order, each next one claimed with the previous result. */
  private async lane(first: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    let c: ClaimedDelivery | null = first;
    for (let n = 1; c !== null; n++) c = await this.deliver(c, signal, n < LANE_RUN);
  }

  /** Resolves when an attempt finishes, the poll interval passes, or the signal aborts. */
  private nextChange(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, this.pollMs);
      signal.addEventListener('abort', done, { once: true });
      for (const p of this.inflight.values()) void p.then(done);
    });
  }

  private async claimDue(limit = this.slots.concurrency): Promise<ClaimedDelivery[]> {
    const now = this.clock.now();
    const until = this.claimUntil(now);
    try {
      return await writeTx(this.db, async (trx) => {
        await this.lease.assertHeld(trx);
        const rows = await dueHeads(trx, {
          now: now.toISOString(),
          grant: this.lease.grant,
          limit,
          exclude: [...this.inflight.keys()],
        });
        await claim(
          trx,
          rows.map((r) => r.id),
          this.lease.grant,
          until,
        );
        return rows;
      });
    } catch (err) {
      if (err instanceof LeaseLostError) return [];
      throw err;
    }
  }

  private claimUntil(now: Date): string {
    return new Date(now.getTime() + this.timeoutMs + 60_000).toISOString();
  }

  /** In the transaction recording a merchant's attempt: its next due delivery, claimed, if any. */
  private async claimNext(trx: Tx, merchantId: string): Promise<ClaimedDelivery | null> {
    if (!this.lease.held()) return null;
    try {
      await this.lease.assertHeld(trx);
    } catch (err) {
      if (err instanceof LeaseLostError) return null;
      throw err;
    }
    const now = this.clock.now();
    const next = await nextDue(trx, { merchantId, now: now.toISOString(), grant: this.lease.grant });
    if (!next) return null;
    await claim(trx, [next.id], this.lease.grant, this.claimUntil(now));
    return next;
  }

  /** One attempt and its record; with `chain`, returns the merchant's next delivery, claimed. */
  private async deliver(c: ClaimedDelivery, signal: AbortSignal, chain: boolean): Promise<ClaimedDelivery | null> {
    // Claimed under the fence; not sent once this process knows the lease gone (a pause overran
    // the grant): the claim is dead and the new holder delivers it.
    if (!this.lease.held()) {
      this.logger.warn({ delivery: c.id, event: c.event_id }, 'worker lease lost: webhook not sent');
      return null;
    }
    const started = this.clock.now();
    const result = await this.post(c, started, signal);
    if (result.kind === 'aborted') {
      await writeTx(this.db, (trx) => releaseClaim(trx, c.id, this.lease.grant)).catch((err: unknown) => {
        // A lost lease: the claim is dead anyway.
        if (!(err instanceof LeaseLostError)) throw err;
      });
      return null;
    }
    const at = this.clock.now();
    const status = result.kind === 'response' ? result.status : null;
    let outcome = c.url === null ? 'failed' : verdictOf(status);
    const windowStart = c.window_started_at ? new Date(c.window_started_at) : started;
    let next: Date | null = null;
    if (outcome === 'retry') {
      const retryAfter = result.kind === 'response' ? result.retryAfter : null;
      next = nextAttemptAt({ attempts: c.window_attempts + 1, now: at, windowStart, retryAfter, random: this.random });
      if (next === null) outcome = 'failed';
    }
    const { written, following } = await this.results.run(async (trx) => {
      const written = await recordAttempt(trx, {
        deliveryId: c.id,
        merchantId: c.merchant_id,
        grant: this.lease.grant,
        at: started.toISOString(),
        url: c.url ?? '-',
        statusCode: status,
        durationMs: result.durationMs,
        outcome,
        error: result.kind === 'error' ? result.error : null,
        excerpt: result.kind === 'response' ? result.excerpt : null,
        windowStartedAt: windowStart.toISOString(),
        nextAttemptAt: next?.toISOString() ?? null,
      });
      // A retried head keeps the merchant's later events waiting: the lane ends here.
      return {
        written,
        following: written && chain && outcome !== 'retry' ? await this.claimNext(trx, c.merchant_id) : null,
      };
    });
    const log = {
      delivery: c.id,
      event: c.event_id,
      merchant: c.merchant_id,
      attempt: c.attempts + 1,
      status,
      outcome,
      ms: result.durationMs,
    };
    if (!written) this.logger.warn(log, 'webhook attempt not recorded: claim lost');
    else if (outcome === 'delivered') this.logger.info(log, 'webhook delivered');
    else
      this.logger.warn(
        { ...log, error: result.kind === 'error' ? result.error : undefined, next: next?.toISOString() },
        'webhook attempt failed',
      );
    return following;
  }

  private async post(c: ClaimedDelivery, at: Date, signal: AbortSignal): Promise<PostResult> {
    if (c.url === null || c.secret === null)
      return { kind: 'error', error: 'the merchant has no webhook endpoint', blocked: true, durationMs: 0 };
    const body = eventBody({ id: c.event_id, type: c.type, created_at: c.event_created_at, data: c.data });
    const secrets = signingSecrets(
      { secret: c.secret, previous_secret: c.previous_secret, previous_secret_until: c.previous_secret_until },
      at,
    );
    const headers = webhookHeaders(secrets, c.event_id, at, body);
    return postWebhook(c.url, headers, body, {
      allowPrivate: c.allow_private === 1,
      timeoutMs: this.timeoutMs,
      signal,
      resolve: this.opts.resolve,
    });
  }
}

/** The dispatcher as `serve` runs it (src/background.ts). */
export function dispatcherWorker(
  s: Pick<Services, 'db' | 'clock' | 'logger'>,
  lease: WorkerLease,
  opts: DispatcherOptions = {},
): Worker {
  return new WebhookDispatcher(s.db, s.clock, lease, s.logger.child({ component: 'webhooks' }), opts).worker();
}
