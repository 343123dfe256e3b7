/**
 * The event outbox. A state change and its event are written in the same transaction (pass the
 * transaction as `db`), so an event exists exactly when its change committed. The webhook
 * dispatcher reads events after commit and delivers them in `seq` order per merchant.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Executor } from '../db/database.js';

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
  return `evt_${randomBytes(12).toString('hex')}`;
}

export async function recordEvent(db: Executor, clock: Clock, e: NewEvent): Promise<EventRecord> {
  const record = { id: newEventId(), type: e.type, created_at: clock.now().toISOString(), data: e.data };
  await db
    .insertInto('events')
    .values({
      id: record.id,
      merchant_id: e.merchantId,
      type: e.type,
      subject_id: e.subjectId,
      data: JSON.stringify(e.data),
      created_at: record.created_at,
      dedupe_key: e.key ?? null,
    })
    .onConflict((oc) => oc.column('dedupe_key').where('dedupe_key', 'is not', null).doNothing())
    .execute();
  return record;
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
