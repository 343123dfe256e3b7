/** Row types of the mail outbox and the owners' notification choices (migration 0069), joined into DB in ../schema.ts. */

export type MailKind = 'receipt' | 'refund_claim' | 'exception' | 'payout_in_review';
export type MailStatus = 'pending' | 'sent' | 'failed';

/** One mail, rendered when its cause committed; sent by the mail worker (src/mail/worker.ts). */
export interface MailOutboxTable {
  id: string;
  kind: MailKind;
  merchant_id: string | null;
  recipient: string;
  /** The language it is written in (one of the payment page's). */
  language: string;
  subject: string;
  text_body: string;
  html_body: string;
  /** Unique per cause and recipient: a replayed cause queues nothing. */
  dedupe_key: string;
  status: MailStatus;
  attempts: number;
  next_attempt_at: string;
  /** The worker lease grant whose attempt holds it, until `claimed_until`. */
  claimed_by: string | null;
  claimed_until: string | null;
  last_error: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

/** An owner's choice of mail; no row: both on. */
export interface OwnerNotificationsTable {
  owner_id: string;
  exceptions: number;
  payouts_in_review: number;
  updated_at: string;
}

export interface MailTables {
  mail_outbox: MailOutboxTable;
  owner_notifications: OwnerNotificationsTable;
}
