/** SQL of the mail outbox's sending side and of the owners' notification choices. */
import type { Executor, Tx } from '../db/database.js';
import type { MailOutboxTable } from '../db/tables/mail.js';

export type MailRow = MailOutboxTable;

/**
 * Due pending mail not claimed by a live attempt, oldest first. A claim by another grant of the
 * worker lease is dead: the caller holds the lease (asserted in the same transaction), so that
 * grant's work no longer runs; this grant's own claim is live until `claimed_until`.
 */
export async function dueMail(trx: Executor, o: { now: string; grant: string; limit: number }): Promise<MailRow[]> {
  return trx
    .selectFrom('mail_outbox')
    .selectAll()
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', o.now)
    .where((eb) =>
      eb.or([eb('claimed_by', 'is', null), eb('claimed_by', '!=', o.grant), eb('claimed_until', '<=', o.now)]),
    )
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(o.limit)
    .execute();
}

export async function claimMail(trx: Tx, ids: string[], grant: string, until: string): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable('mail_outbox')
    .set({ claimed_by: grant, claimed_until: until })
    .where('id', 'in', ids)
    .execute();
}

export interface MailAttempt {
  id: string;
  grant: string;
  at: string;
  outcome: 'sent' | 'retry' | 'failed';
  error: string | null;
  nextAttemptAt: string | null;
}

/**
 * Records an attempt, only while this grant's claim stands and the mail is still pending (a holder
 * that lost its claim records nothing); returns whether it did.
 */
export async function recordMailAttempt(trx: Tx, a: MailAttempt): Promise<boolean> {
  const r = await trx
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: a.outcome === 'retry' ? 'pending' : a.outcome,
      attempts: eb('attempts', '+', 1),
      next_attempt_at: a.nextAttemptAt ?? a.at,
      claimed_by: null,
      claimed_until: null,
      last_error: a.error,
      sent_at: a.outcome === 'sent' ? a.at : null,
      updated_at: a.at,
    }))
    .where('id', '=', a.id)
    .where('status', '=', 'pending')
    .where('claimed_by', '=', a.grant)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

export interface Recipient {
  owner_id: string;
  email: string;
}

/** The owners of a merchant (not disabled) who want this kind of mail; no choice made is yes. */
export async function ownersToTell(
  db: Executor,
  merchantId: string,
  topic: 'exceptions' | 'payouts_in_review',
): Promise<Recipient[]> {
  return db
    .selectFrom('owner_merchants as m')
    .innerJoin('owners as o', 'o.id', 'm.owner_id')
    .leftJoin('owner_notifications as n', 'n.owner_id', 'o.id')
    .select(['o.id as owner_id', 'o.email'])
    .where('m.merchant_id', '=', merchantId)
    .where('o.disabled_at', 'is', null)
    .where((eb) => eb.or([eb(`n.${topic}`, 'is', null), eb(`n.${topic}`, '=', 1)]))
    .orderBy('o.id')
    .execute();
}

export interface NotificationChoice {
  exceptions: boolean;
  payouts_in_review: boolean;
}

export async function readChoice(db: Executor, ownerId: string): Promise<NotificationChoice> {
  const row = await db.selectFrom('owner_notifications').selectAll().where('owner_id', '=', ownerId).executeTakeFirst();
  return { exceptions: row ? row.exceptions === 1 : true, payouts_in_review: row ? row.payouts_in_review === 1 : true };
}

export async function writeChoice(trx: Tx, ownerId: string, c: NotificationChoice, at: string): Promise<void> {
  const values = { exceptions: c.exceptions ? 1 : 0, payouts_in_review: c.payouts_in_review ? 1 : 0, updated_at: at };
  await trx
    .insertInto('owner_notifications')
    .values({ owner_id: ownerId, ...values })
    .onConflict((oc) => oc.column('owner_id').doUpdateSet(values))
    .execute();
}

/**
 * The order id a mail names. Read here rather than through the invoices' store: mail sits below
 * the features whose events it mails, and importing the invoices folder would close a cycle.
 */
export async function orderIdOf(db: Executor, invoiceId: string): Promise<string | null> {
  const row = await db.selectFrom('invoices').select('order_id').where('id', '=', invoiceId).executeTakeFirst();
  return row?.order_id ?? null;
}
