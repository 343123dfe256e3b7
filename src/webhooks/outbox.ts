/**
 * The event outbox. A state change and its event are written in the same transaction (pass the
 * transaction as `db`), so an event exists exactly when its change committed. In that transaction
 * the event also gets its merchant's next sequence number and, when the merchant has a webhook
 * endpoint, a pending delivery; the dispatcher delivers them after commit, in merchant_seq order.
 */
import type { Clock } from '../clock.js';
import type { Executor, Tx } from '../db/database.js';
import { timeOrderedId } from '../db/ids.js';

export interface NewEvent {
  merchantId: string;
  type: string;
  subjectId: string;
  data: unknown;
  /**
   * Unique per state transition (e.g. `invoice:<id>:seen:<n>`): an event whose key was recorded
   * already is not recorded again, so replaying a transition (a re-scan, a retry) emits nothing.
   */
  key?: string;
}

export interface EventRecord {
  id: string;
  type: string;
  created_at: string;
  data: unknown;
}

export function newEventId(): string {
  return timeOrderedId('evt_');
}

export function newDeliveryId(): string {
  return timeOrderedId('dlv_');
}

/** Whether an event with this dedupe key was recorded (run inside the caller's transaction). */
export async function eventKeyRecorded(db: Executor, key: string): Promise<boolean> {
  return (await db.selectFrom('events').select('id').where('dedupe_key', '=', key).executeTakeFirst()) !== undefined;
}

/**
 * How many events a subject (invoice, deposit) has had: the dedupe keys of its transitions count
 * them, so a status entered again after a fork gets a key of its own.
 */
export async function subjectEventCount(db: Executor, subjectId: string): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('subject_id', '=', subjectId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Another feature's reaction to an event, run in the transaction that records it (only the first
 * time: a replayed transition runs none), so it commits or rolls back with the state change.
 * Registered by the composition (src/mail/wiring.ts), so this feature imports none of them.
 */
export type EventListener = (trx: Tx, clock: Clock, e: NewEvent) => Promise<void>;

const listeners: EventListener[] = [];

export function onEventRecorded(listener: EventListener): void {
  if (!listeners.includes(listener)) listeners.push(listener);
}

export async function recordEvent(db: Tx, clock: Clock, e: NewEvent): Promise<EventRecord> {
  const record = { id: newEventId(), type: e.type, created_at: clock.now().toISOString(), data: e.data };
  // A replayed transition: nothing to do, and no sequence number spent on it.
  if (e.key !== undefined && (await eventKeyRecorded(db, e.key))) return record;
  const merchantSeq = await nextMerchantSeq(db, e.merchantId);
  const inserted = await db
    .insertInto('events')
    .values({
      id: record.id,
      merchant_id: e.merchantId,
      type: e.type,
      subject_id: e.subjectId,
      data: JSON.stringify(e.data),
      created_at: record.created_at,
      dedupe_key: e.key ?? null,
      merchant_seq: merchantSeq,
    })
    // Two writers racing on one key (a multi-writer database): the second records nothing.
    .onConflict((oc) => oc.column('dedupe_key').where('dedupe_key', 'is not', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted === undefined) return record;
  await enqueueDelivery(db, { eventId: record.id, merchantId: e.merchantId, merchantSeq, at: record.created_at });
  for (const listener of listeners) await listener(db, clock, e);
  return record;
}

/**
 * Takes the merchant's next number. The UPDATE locks the merchant's counter row until commit, so
 * another transaction emitting for the same merchant waits and gets the next number after this one
 * committed: per merchant, commit order is number order, and the dispatcher never sees n+1
 * committed while n is still to come.
 */
async function nextMerchantSeq(db: Tx, merchantId: string): Promise<number> {
  const row = await db
    .insertInto('merchant_event_sequences')
    .values({ merchant_id: merchantId, last_seq: 1 })
    .onConflict((oc) =>
      oc.column('merchant_id').doUpdateSet((eb) => ({ last_seq: eb('merchant_event_sequences.last_seq', '+', 1) })),
    )
    .returning('last_seq')
    .executeTakeFirst();
  if (!row) throw new Error(`no event sequence for merchant ${merchantId}`);
  return row.last_seq;
}

/**
 * A delivery exists only for a merchant that has an endpoint when the event is recorded: events
 * from before an endpoint was set are not delivered later
 * (docs/adr/0030-webhook-order-and-retries.md).
 */
async function enqueueDelivery(
  db: Tx,
  d: { eventId: string; merchantId: string; merchantSeq: number; at: string },
): Promise<void> {
  const endpoint = await db
    .selectFrom('webhook_endpoints')
    .select('merchant_id')
    .where('merchant_id', '=', d.merchantId)
    .executeTakeFirst();
  if (!endpoint) return;
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: newDeliveryId(),
      event_id: d.eventId,
      merchant_id: d.merchantId,
      merchant_seq: d.merchantSeq,
      status: 'pending',
      attempts: 0,
      window_attempts: 0,
      window_started_at: null,
      next_attempt_at: d.at,
      claimed_by: null,
      claimed_until: null,
      last_attempt_at: null,
      last_status_code: null,
      last_error: null,
      created_at: d.at,
      updated_at: d.at,
    })
    .execute();
}

/** Events of one merchant after `afterSeq`, oldest first (scoped by merchant like every read). */
export async function eventsOf(db: Executor, merchantId: string, afterSeq = 0, limit = 100) {
  return db
    .selectFrom('events')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}
