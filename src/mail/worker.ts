/**
 * The mail worker: a worker of `serve`, under the worker lease, like the webhook dispatcher. Each
 * round claims the due mail in one write transaction (the claim names the lease's grant, so two
 * replicas never take the same mail while the lease stands), sends it after commit, and records
 * each result only while its claim stands. A crash between the server's acceptance and the record
 * sends that mail again once its claim lapses: at least once, and exactly once on the happy path.
 * Retries back off as webhooks do (30 s doubling, ±20 %, at most 6 h apart) for 3 days from the
 * mail's creation; a 5xx answer fails at once.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { writeTx, type Db } from '../db/database.js';
import type { Worker } from '../runtime/worker.js';
import { LeaseLostError, type WorkerLease } from '../runtime/lease.js';
import type { Services } from '../services.js';
import { backoffMs, RETRY_WINDOW_MS } from '../webhooks/schedule.js';
import { claimMail, dueMail, recordMailAttempt, type MailRow } from './store.js';
import { smtpTransport, type MailTransport, type SendResult } from './transport.js';

export const MAIL_WORKER_NAME = 'mail-sender';

type Lease = Pick<WorkerLease, 'grant' | 'held' | 'assertHeld'>;

export interface MailWorkerOptions {
  /** Mail claimed per round; default 20. */
  batch?: number;
  /** Jitter source, [0, 1); default Math.random. */
  random?: () => number;
}

/** How long a claim lives: longer than one attempt can take (nodemailer's timeouts), then it is dead. */
const CLAIM_MS = 120_000;

export class MailWorker {
  private readonly batch: number;
  private readonly random: () => number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly lease: Lease,
    private readonly transport: MailTransport,
    private readonly logger: Logger,
    opts: MailWorkerOptions = {},
  ) {
    this.batch = opts.batch ?? 20;
    this.random = opts.random ?? Math.random;
  }

  worker(intervalMs = 2_000): Worker {
    return {
      name: MAIL_WORKER_NAME,
      intervalMs,
      // A full batch: more is waiting, and the host ticks again at once.
      tick: async () => (await this.sendDue()) >= this.batch,
    };
  }

  /** One round: claims what is due now, sends it one by one, records each result; returns how many. */
  async sendDue(): Promise<number> {
    const claimed = await this.claim();
    for (const m of claimed) await this.attempt(m);
    return claimed.length;
  }

  private async claim(): Promise<MailRow[]> {
    const now = this.clock.now();
    try {
      return await writeTx(this.db, async (trx) => {
        await this.lease.assertHeld(trx);
        const rows = await dueMail(trx, { now: now.toISOString(), grant: this.lease.grant, limit: this.batch });
        await claimMail(
          trx,
          rows.map((r) => r.id),
          this.lease.grant,
          new Date(now.getTime() + CLAIM_MS).toISOString(),
        );
        return rows;
      });
    } catch (err) {
      if (err instanceof LeaseLostError) return [];
      throw err;
    }
  }

  private async attempt(m: MailRow): Promise<void> {
    // Claimed under the fence; not sent once this process knows the lease gone.
    if (!this.lease.held()) return;
    const result: SendResult = await this.transport.send(m.recipient, {
      subject: m.subject,
      text: m.text_body,
      html: m.html_body,
    });
    const at = this.clock.now();
    let outcome = result.kind;
    let next: Date | null = null;
    if (outcome === 'retry') {
      next = new Date(at.getTime() + backoffMs(m.attempts + 1, this.random));
      if (next.getTime() - new Date(m.created_at).getTime() > RETRY_WINDOW_MS) outcome = 'failed';
    }
    const error = result.kind === 'sent' ? null : result.error;
    let written = false;
    try {
      written = await writeTx(this.db, (trx) =>
        recordMailAttempt(trx, {
          id: m.id,
          grant: this.lease.grant,
          at: at.toISOString(),
          outcome,
          error,
          nextAttemptAt: outcome === 'retry' ? next!.toISOString() : null,
        }),
      );
    } catch (err) {
      if (!(err instanceof LeaseLostError)) throw err;
    }
    const log = { mail: m.id, kind: m.kind, merchant: m.merchant_id, attempt: m.attempts + 1, outcome };
    if (!written) this.logger.warn(log, 'mail attempt not recorded: claim lost');
    else if (outcome === 'sent') this.logger.info(log, 'mail sent');
    else this.logger.warn({ ...log, error, next: next?.toISOString() }, 'mail attempt failed');
  }
}

/** The worker `serve` runs when SMTP_URL and MAIL_FROM are set; none without them. */
export function mailWorkers(
  s: Pick<Services, 'db' | 'clock' | 'logger'> & { config: Pick<Config, 'mail'> },
  lease: WorkerLease,
): Worker[] {
  if (!s.config.mail) return [];
  const transport = smtpTransport(s.config.mail);
  const w = new MailWorker(s.db, s.clock, lease, transport, s.logger.child({ component: 'mail' })).worker();
  return [w];
}
