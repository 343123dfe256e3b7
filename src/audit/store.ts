/**
 * Audit trail of operator actions: who did what to which record, when. Written in the same
 * transaction as the change it describes, so the trail and the data never disagree.
 */
import type { Clock } from '../clock.js';
import type { Executor, Tx } from '../db/database.js';

export interface AuditEntry {
  actor: string;
  action: string;
  subjectType: string;
  subjectId: string;
  merchantId?: string | null;
  details?: Record<string, unknown>;
}

export async function recordAudit(db: Tx, clock: Clock, e: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at: clock.now().toISOString(),
      actor: e.actor,
      action: e.action,
      subject_type: e.subjectType,
      subject_id: e.subjectId,
      merchant_id: e.merchantId ?? null,
      details: JSON.stringify(e.details ?? {}),
    })
    .execute();
}

export async function listAudit(db: Executor, subjectType: string, subjectId: string) {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('subject_type', '=', subjectType)
    .where('subject_id', '=', subjectId)
    .orderBy('id')
    .execute();
}
