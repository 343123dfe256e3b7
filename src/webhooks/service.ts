/**
 * The operator's view of webhook deliveries (`paygate webhook …`): list, show with attempts,
 * resend a failed one, send a signed test event now, and the retention job of the delivery log.
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Tx } from '../db/database.js';
import type { DeliveryStatus } from '../db/tables/webhooks.js';
import { AppError } from '../errors.js';
import type { PageRequest } from '../http/pagination.js';
import { requireMerchant } from '../merchants/service.js';
import { eventBody } from './dispatcher.js';
import { findEndpoint, signingSecrets } from './endpoints.js';
import { TEST_EVENT_TYPE } from './event-types.js';
import { webhookHeaders } from './signing.js';
import {
  attemptsOf,
  findDelivery,
  listDeliveries,
  pruneAttemptsBefore,
  pruneDeliveriesBefore,
  reopen,
  type DeliveryRow,
} from './store.js';
import { postWebhook, type PostOptions } from './transport.js';
import { attemptView, deliveryView, type AttemptView, type DeliveryView } from './view.js';

export type { AttemptView, DeliveryView } from './view.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const satisfies readonly DeliveryStatus[];
/** The delivery log is kept at least this long (docs/webhooks.md: 60 days). */
export const LOG_RETENTION_DAYS = 60;

const DELIVERY_ID = /^dlv_[0-9a-f]{24}$/;
const EVENT_ID = /^evt_[0-9a-f]{24}$/;

/** Newest first: at most `limit` (the CLI), or one page (the console). */
export async function deliveries(
  db: Db,
  f: { merchantId?: string; status?: DeliveryStatus; limit?: number; page?: PageRequest },
): Promise<DeliveryView[]> {
  if (f.merchantId) await requireMerchant(db, f.merchantId);
  const rows = await listDeliveries(db, { ...f, limit: f.limit ?? 100 });
  return rows.map((r) => deliveryView(r, r.type));
}

/** A delivery by its dlv_ id (or its event's evt_ id); anything else is delivery_not_found. */
async function requireDelivery(db: Db, id: string): Promise<{ row: DeliveryRow; type: string }> {
  const row = DELIVERY_ID.test(id) || EVENT_ID.test(id) ? await findDelivery(db, id) : undefined;
  if (!row) throw new AppError('delivery_not_found', `Webhook delivery ${id} does not exist`);
  const event = await db.selectFrom('events').select('type').where('id', '=', row.event_id).executeTakeFirstOrThrow();
  return { row, type: event.type };
}

export async function showDelivery(db: Db, id: string): Promise<DeliveryView & { attempts_log: AttemptView[] }> {
  const { row, type } = await requireDelivery(db, id);
  return { ...deliveryView(row, type), attempts_log: (await attemptsOf(db, row.id)).map(attemptView) };
}

/** A failed delivery goes out again (same webhook-id), with a fresh 3-day retry window. */
export async function resendDelivery(db: Db, clock: Clock, actor: string, id: string): Promise<DeliveryView> {
  return writeTx(db, async (trx) => {
    const row = DELIVERY_ID.test(id) ? await findDelivery(trx, id) : undefined;
    if (!row) throw new AppError('delivery_not_found', `Webhook delivery ${id} does not exist`);
    const at = clock.now().toISOString();
    if (!(await reopen(trx, row.id, at))) {
      throw new AppError(
        'delivery_not_failed',
        `Webhook delivery ${id} is ${row.status}; only a failed delivery can be resent`,
      );
    }
    await recordAudit(trx, clock, {
      actor,
      action: 'webhook.resend',
      subjectType: 'webhook_delivery',
      subjectId: row.id,
      merchantId: row.merchant_id,
      details: { event_id: row.event_id },
    });
    const event = await trx
      .selectFrom('events')
      .select('type')
      .where('id', '=', row.event_id)
      .executeTakeFirstOrThrow();
    return deliveryView({ ...row, status: 'pending', next_attempt_at: at, updated_at: at }, event.type);
  });
}

export interface TestResult {
  event_id: string;
  url: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

/**
 * Sends a signed `webhook.test` event now, outside the merchant's ordered queue and the delivery
 * log. With an `actor`, the audit log records who sent it and what the receiver answered.
 */
export async function sendTestEvent(
  db: Db,
  clock: Clock,
  merchantId: string,
  opts: Pick<PostOptions, 'timeoutMs' | 'resolve'> & { actor?: string } = {},
): Promise<TestResult> {
  await requireMerchant(db, merchantId);
  const endpoint = await findEndpoint(db, merchantId);
  if (!endpoint)
    throw new AppError(
      'invalid_state',
      `Merchant ${merchantId} has no webhook endpoint: set one with \`paygate merchant webhook ${merchantId} --url …\``,
    );
  const now = clock.now();
  const id = `evt_${randomBytes(12).toString('hex')}`;
  const data = JSON.stringify({
    merchant_id: merchantId,
    message: 'Test event from paygate: your endpoint receives and verifies webhooks.',
  });
  const body = eventBody({ id, type: TEST_EVENT_TYPE, created_at: now.toISOString(), data });
  const headers = webhookHeaders(signingSecrets(endpoint, now), id, now, body);
  const { actor, ...post } = opts;
  const r = await postWebhook(endpoint.url, headers, body, { allowPrivate: endpoint.allow_private === 1, ...post });
  const result: TestResult = {
    event_id: id,
    url: endpoint.url,
    status_code: r.kind === 'response' ? r.status : null,
    duration_ms: r.durationMs,
    error: r.kind === 'error' ? r.error : null,
    response_excerpt: r.kind === 'response' ? r.excerpt : null,
  };
  if (actor !== undefined) {
    await writeTx(db, (trx) =>
      recordAudit(trx, clock, {
        actor,
        action: 'webhook.test',
        subjectType: 'merchant',
        subjectId: merchantId,
        merchantId,
        details: { event_id: id, url: endpoint.url, status_code: result.status_code },
      }),
    );
  }
  return result;
}

/** Rows the retention job deletes per transaction. */
export const PRUNE_BATCH = 2_000;

/**
 * The scheduled retention job: attempts and finished deliveries older than LOG_RETENTION_DAYS go,
 * `batch` rows per transaction with a turn of the event loop between: a day's worth of a busy
 * installation (or the first run on an old database) in one transaction held the write lock, and
 * with it the watcher and every API write, for as long as the deletes took.
 */
export async function pruneDeliveryLog(
  db: Db,
  clock: Clock,
  days = LOG_RETENTION_DAYS,
  batch = PRUNE_BATCH,
): Promise<{ attempts: number; deliveries: number }> {
  const cutoff = new Date(clock.now().getTime() - days * 86_400_000).toISOString();
  const drain = async (step: (trx: Tx) => Promise<number>) => {
    let total = 0;
    for (;;) {
      const n = await writeTx(db, step);
      total += n;
      if (n < batch) return total;
      await nextTurn();
    }
  };
  const attempts = await drain((trx) => pruneAttemptsBefore(trx, cutoff, batch));
  const deliveries = await drain((trx) => pruneDeliveriesBefore(trx, cutoff, batch));
  return { attempts, deliveries };
}
