/** SQL of webhook deliveries and their attempts (the delivery log). Operator-level reads. */
import { sql } from 'kysely';
import type { Executor, Tx } from '../db/database.js';
import { afterKey } from '../db/keyset.js';
import { indexedBy } from '../db/portable.js';
import type {
  AttemptOutcome,
  DeliveryStatus,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
} from '../db/tables/webhooks.js';
import type { PageRequest } from '../http/pagination.js';

export type DeliveryRow = WebhookDeliveriesTable;
export type AttemptRow = Omit<WebhookAttemptsTable, 'id'> & { id: number };

/** A claimed delivery with what its attempt needs: the event and the merchant's endpoint now. */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  merchant_id: string;
  merchant_seq: number;
  attempts: number;
  window_attempts: number;
  window_started_at: string | null;
  type: string;
  event_created_at: string;
  data: string;
  url: string | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_until: string | null;
  allow_private: number | null;
}

/**
 * Due deliveries that are the oldest pending one of their merchant (a later event waits while an
 * earlier one is retrying), not claimed by a live attempt, excluding merchants already in flight
 * here. A claim by another grant of the worker lease (another process's, or this one's before it
 * lost the lease) is dead: the caller holds the lease (asserted in the same transaction), so that
 * grant's work no longer runs.
 *
 * The merchants with pending deliveries are walked by a skip-scan of the pending index (one seek
 * per merchant, the index named so the planner cannot pick a scan of every pending row), so a
 * backlog behind a retrying head costs next to nothing per poll (bench/webhooks.ts).
 */
export async function dueHeads(
  trx: Executor,
  o: { now: string; grant: string; limit: number; exclude: readonly string[] },
): Promise<ClaimedDelivery[]> {
  const excluded = o.exclude.length > 0 ? sql`and d.merchant_id not in (${sql.join([...o.exclude])})` : sql``;
  const pending = indexedBy(trx, 'webhook_deliveries_pending');
  const r = await sql<ClaimedDelivery>`
    with recursive m(id) as (
      select min(merchant_id) from webhook_deliveries ${pending} where status = 'pending'
      union all
      select (select min(merchant_id) from webhook_deliveries ${pending} where status = 'pending' and merchant_id > m.id)
      from m where m.id is not null
    )
    select d.id, d.event_id, d.merchant_id, d.merchant_seq, d.attempts, d.window_attempts, d.window_started_at,
           e.type, e.created_at as event_created_at, e.data,
           w.url, w.secret, w.previous_secret, w.previous_secret_until, w.allow_private
    from m
    join webhook_deliveries d ${pending} on d.merchant_id = m.id and d.status = 'pending'
      and d.merchant_seq = (select min(merchant_seq) from webhook_deliveries ${pending} where status = 'pending' and merchant_id = m.id)
    join events e on e.id = d.event_id
    left join webhook_endpoints w on w.merchant_id = d.merchant_id
    where d.next_attempt_at <= ${o.now}
      and (d.claimed_by is null or d.claimed_by != ${o.grant} or d.claimed_until <= ${o.now})
      ${excluded}
    order by d.next_attempt_at, d.merchant_id
    limit ${o.limit}`.execute(trx);
  return r.rows;
}

/**
 * The oldest pending delivery of one merchant, when it is due and not claimed by a live attempt:
 * what a dispatcher lane takes next in the transaction that records the merchant's previous
 * attempt (dispatcher.ts), so a busy merchant's deliveries cost no claim transaction of their own.
 */
export async function nextDue(trx: Executor, o: NextDueQuery): Promise<ClaimedDelivery | undefined> {
  return (await nextDueQuery(trx, o).execute(trx)).rows[0];
}

interface NextDueQuery {
  merchantId: string;
  now: string;
  grant: string;
}

/** The SQL of nextDue (exported for its query-plan test). */
export function nextDueQuery(db: Executor, o: NextDueQuery) {
  const pending = indexedBy(db, 'webhook_deliveries_pending');
  return sql<ClaimedDelivery>`
    select d.id, d.event_id, d.merchant_id, d.merchant_seq, d.attempts, d.window_attempts, d.window_started_at,
           e.type, e.created_at as event_created_at, e.data,
           w.url, w.secret, w.previous_secret, w.previous_secret_until, w.allow_private
    from webhook_deliveries d ${pending}
    join events e on e.id = d.event_id
    left join webhook_endpoints w on w.merchant_id = d.merchant_id
    where d.merchant_id = ${o.merchantId} and d.status = 'pending'
      and d.merchant_seq = (select min(merchant_seq) from webhook_deliveries ${pending} where status = 'pending' and merchant_id = ${o.merchantId})
      and d.next_attempt_at <= ${o.now}
      and (d.claimed_by is null or d.claimed_by != ${o.grant} or d.claimed_until <= ${o.now})`;
}

export async function claim(trx: Tx, ids: string[], grant: string, until: string): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable('webhook_deliveries')
    .set({ claimed_by: grant, claimed_until: until })
    .where('id', 'in', ids)
    .execute();
}

/** Gives a claim back without an attempt (shutdown mid-request): the delivery is due again at once. */
export async function releaseClaim(trx: Tx, id: string, grant: string): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ claimed_by: null, claimed_until: null })
    .where('id', '=', id)
    .where('claimed_by', '=', grant)
    .execute();
}

export interface AttemptRecord {
  deliveryId: string;
  merchantId: string;
  /** The worker lease grant (WorkerLease.grant) whose claim the attempt was made under. */
  grant: string;
  at: string;
  url: string;
  statusCode: number | null;
  durationMs: number;
  outcome: AttemptOutcome;
  error: string | null;
  excerpt: string | null;
  windowStartedAt: string;
  nextAttemptAt: string | null;
}

/**
 * Records an attempt and its consequence. The delivery is updated first, only while this grant's
 * claim stands and it is still pending (a holder that lost its claim records nothing); returns
 * whether it did.
 */
export async function recordAttempt(trx: Tx, a: AttemptRecord): Promise<boolean> {
  const status: DeliveryStatus = a.outcome === 'retry' ? 'pending' : a.outcome;
  const updated = await trx
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status,
      attempts: eb('attempts', '+', 1),
      window_attempts: eb('window_attempts', '+', 1),
      window_started_at: a.windowStartedAt,
      next_attempt_at: a.nextAttemptAt ?? a.at,
      claimed_by: null,
      claimed_until: null,
      last_attempt_at: a.at,
      last_status_code: a.statusCode,
      last_error: a.error,
      updated_at: a.at,
    }))
    .where('id', '=', a.deliveryId)
    .where('status', '=', 'pending')
    .where('claimed_by', '=', a.grant)
    .returning('attempts')
    .executeTakeFirst();
  if (!updated) return false;
  await trx
    .insertInto('webhook_attempts')
    .values({
      delivery_id: a.deliveryId,
      merchant_id: a.merchantId,
      attempt: updated.attempts,
      at: a.at,
      url: a.url,
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      outcome: a.outcome,
      error: a.error,
      response_excerpt: a.excerpt,
    })
    .execute();
  return true;
}

export async function findDelivery(db: Executor, id: string): Promise<DeliveryRow | undefined> {
  const column = id.startsWith('evt_') ? 'event_id' : 'id';
  return db.selectFrom('webhook_deliveries').selectAll().where(column, '=', id).executeTakeFirst();
}

export async function attemptsOf(db: Executor, deliveryId: string): Promise<AttemptRow[]> {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute();
}

export interface DeliveryListRow extends DeliveryRow {
  type: string;
  /** The invoice, payout or deposit the event is about. */
  subject_id: string;
}

/**
 * Newest first. A page of the console (`page`) is keyed on (created_at, id), so its ties break by
 * id; the CLI's one list breaks them by the merchant's event order.
 */
export async function listDeliveries(
  db: Executor,
  f: { merchantId?: string; status?: DeliveryStatus; retrying?: boolean; limit: number; page?: PageRequest },
): Promise<DeliveryListRow[]> {
  let q = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select(['e.type', 'e.subject_id']);
  if (f.merchantId) q = q.where('d.merchant_id', '=', f.merchantId);
  if (f.status) q = q.where('d.status', '=', f.status);
  // Still pending after a refused or failed attempt: the endpoint is not taking them.
  if (f.retrying) q = q.where('d.status', '=', 'pending').where('d.attempts', '>', 0);
  if (!f.page) return q.orderBy('d.created_at', 'desc').orderBy('d.merchant_seq', 'desc').limit(f.limit).execute();
  const after = f.page.after;
  if (after) q = q.where((eb) => afterKey(eb, 'd.created_at', 'd.id', after, 'desc'));
  return q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(f.page.limit).execute();
}

/** Back to pending with a fresh retry window; only from `failed` (the caller checked, the WHERE guards). */
export async function reopen(trx: Tx, id: string, at: string): Promise<boolean> {
  const r = await trx
    .updateTable('webhook_deliveries')
    .set({
      status: 'pending',
      next_attempt_at: at,
      window_started_at: null,
      window_attempts: 0,
      claimed_by: null,
      claimed_until: null,
      updated_at: at,
    })
    .where('id', '=', id)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Deletes at most `limit` log entries older than `cutoff`, oldest first; returns how many. The
 * retention job calls it until fewer come back, one short transaction each (service.ts).
 */
export async function pruneAttemptsBefore(trx: Tx, cutoff: string, limit: number): Promise<number> {
  const r = await trx
    .deleteFrom('webhook_attempts')
    .where('id', 'in', (eb) =>
      eb.selectFrom('webhook_attempts').select('id').where('at', '<', cutoff).orderBy('at').limit(limit),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Deletes at most `limit` finished deliveries untouched since `cutoff` (their attempts go with them). */
export async function pruneDeliveriesBefore(trx: Tx, cutoff: string, limit: number): Promise<number> {
  const r = await trx
    .deleteFrom('webhook_deliveries')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', 'in', ['delivered', 'failed'])
        .where('updated_at', '<', cutoff)
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Deliveries in status failed (they wait for `webhook resend`), for /metrics. */
export async function failedDeliveryCount(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
