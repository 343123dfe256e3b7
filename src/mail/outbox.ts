/**
 * Queues mail in the caller's transaction: a mail exists exactly when the state change that causes
 * it committed, and a replayed cause (same dedupe key) queues nothing. Sending is the worker's
 * (worker.ts), after commit, so no SMTP call ever happens inside a write transaction.
 */
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import { timeOrderedId } from '../db/ids.js';
import type { MailKind } from '../db/tables/mail.js';
import type { RenderedMail } from './messages.js';

export interface NewMail {
  kind: MailKind;
  merchantId: string | null;
  recipient: string;
  language: string;
  /** Unique per cause and recipient. */
  key: string;
  mail: RenderedMail;
}

export async function queueMail(trx: Tx, clock: Clock, m: NewMail): Promise<void> {
  const at = clock.now().toISOString();
  await trx
    .insertInto('mail_outbox')
    .values({
      id: timeOrderedId('mail_'),
      kind: m.kind,
      merchant_id: m.merchantId,
      recipient: m.recipient,
      language: m.language,
      subject: m.mail.subject,
      text_body: m.mail.text,
      html_body: m.mail.html,
      dedupe_key: m.key,
      status: 'pending',
      attempts: 0,
      next_attempt_at: at,
      claimed_by: null,
      claimed_until: null,
      last_error: null,
      sent_at: null,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .execute();
}
