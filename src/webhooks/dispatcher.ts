/**
 * The webhook dispatcher: a worker of `serve`, under the worker lease. Each round claims, in one
 * write transaction, the oldest pending delivery of each merchant that is due (so a merchant's
 * later event waits while an earlier one is retrying) and, after commit, POSTs them concurrently,
 * at most `concurrency` at once and one per merchant (a slow merchant holds one slot, never another
 * merchant's queue). Each result is written in its own transaction. Everything lives in the
 * database, so a restart loses nothing: an unfinished claim is taken over by the next lease holder.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Services } from '../services.js';
import { writeTx, type Db } from '../db/database.js';
import type { Worker } from '../workers/host.js';
import { LeaseLostError, type WorkerLease } from '../workers/lease.js';
import { signingSecrets } from './endpoints.js';
import { nextAttemptAt, verdictOf } from './schedule.js';
import { webhookHeaders } from './signing.js';
import { claim, dueHeads, recordAttempt, releaseClaim, type ClaimedDelivery } from './store.js';
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

type Lease = Pick<WorkerLease, 'holder' | 'held' | 'assertHeld'>;

/** The JSON body: the event as recorded (data is the stored JSON text, sent byte for byte). */
export function eventBody(e: { id: string; type: string; created_at: string; data: string }): string {
  return `{"id":${JSON.stringify(e.id)},"type":${JSON.stringify(e.type)},"created_at":${JSON.stringify(e.created_at)},"data":${e.data}}`;
}

export class WebhookDispatcher {
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly timeoutMs: number;
  private readonly random: () => number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly lease: Lease,
    private readonly logger: Logger,
    private readonly opts: DispatcherOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 8;
    this.pollMs = opts.pollMs ?? 1_000;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.random = opts.random ?? Math.random;
  }

  worker(intervalMs = 1_000): Worker {
    return { name: DISPATCHER_NAME, intervalMs, tick: (signal) => this.run(signal) };
  }

  /** One round for tests: claims what is due now, delivers it, resolves when all attempts are written. */
  async dispatchDue(signal: AbortSignal = new AbortController().signal): Promise<number> {
    const claimed = await this.claimDue();
    await Promise.all(claimed.map((c) => this.deliver(c, signal)));
    return claimed.length;
  }

  /**
   * The worker's tick: keeps the pool busy until nothing is in flight and nothing is due. It
   * returns only with nothing in flight, so stopping the host waits for (aborted) requests.
   */
  private async run(signal: AbortSignal): Promise<boolean> {
    try {
      while (!signal.aborted && this.lease.held()) {
        const free = this.concurrency - this.inflight.size;
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
    const p = this.deliver(c, signal)
      .catch((err: unknown) => this.logger.error({ err, delivery: c.id }, 'webhook delivery could not be recorded'))
      .finally(() => this.inflight.delete(c.merchant_id));
    this.inflight.set(c.merchant_id, p);
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

  private async claimDue(limit = this.concurrency): Promise<ClaimedDelivery[]> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + this.timeoutMs + 60_000).toISOString();
    try {
      return await writeTx(this.db, async (trx) => {
        await this.lease.assertHeld(trx);
        const rows = await dueHeads(trx, { now: now.toISOString(), holder: this.lease.holder, limit, exclude: [...this.inflight.keys()] });
        await claim(trx, rows.map((r) => r.id), this.lease.holder, until);
        return rows;
      });
    } catch (err) {
      if (err instanceof LeaseLostError) return [];
      throw err;
    }
  }

  private async deliver(c: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const started = this.clock.now();
    const result = await this.post(c, started, signal);
    if (result.kind === 'aborted') {
      await writeTx(this.db, (trx) => releaseClaim(trx, c.id, this.lease.holder));
      return;
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
    const written = await writeTx(this.db, (trx) =>
      recordAttempt(trx, {
        deliveryId: c.id,
        merchantId: c.merchant_id,
        holder: this.lease.holder,
        at: started.toISOString(),
        url: c.url ?? '-',
        statusCode: status,
        durationMs: result.durationMs,
        outcome,
        error: result.kind === 'error' ? result.error : null,
        excerpt: result.kind === 'response' ? result.excerpt : null,
        windowStartedAt: windowStart.toISOString(),
        nextAttemptAt: next?.toISOString() ?? null,
      }),
    );
    const log = { delivery: c.id, event: c.event_id, merchant: c.merchant_id, attempt: c.attempts + 1, status, outcome, ms: result.durationMs };
    if (!written) this.logger.warn(log, 'webhook attempt not recorded: claim lost');
    else if (outcome === 'delivered') this.logger.info(log, 'webhook delivered');
    else this.logger.warn({ ...log, error: result.kind === 'error' ? result.error : undefined, next: next?.toISOString() }, 'webhook attempt failed');
  }

  private async post(c: ClaimedDelivery, at: Date, signal: AbortSignal): Promise<PostResult> {
    if (c.url === null || c.secret === null) return { kind: 'error', error: 'the merchant has no webhook endpoint', blocked: true, durationMs: 0 };
    const body = eventBody({ id: c.event_id, type: c.type, created_at: c.event_created_at, data: c.data });
    const secrets = signingSecrets({ secret: c.secret, previous_secret: c.previous_secret, previous_secret_until: c.previous_secret_until }, at);
    const headers = webhookHeaders(secrets, c.event_id, at, body);
    return postWebhook(c.url, headers, body, { allowPrivate: c.allow_private === 1, timeoutMs: this.timeoutMs, signal, resolve: this.opts.resolve });
  }
}

/** The dispatcher as `serve` runs it (src/workers/index.ts). */
export function dispatcherWorker(s: Pick<Services, 'db' | 'clock' | 'logger'>, lease: WorkerLease, opts: DispatcherOptions = {}): Worker {
  return new WebhookDispatcher(s.db, s.clock, lease, s.logger.child({ component: 'webhooks' }), opts).worker();
}
