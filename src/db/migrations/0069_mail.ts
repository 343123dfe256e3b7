import { sql, type Kysely } from 'kysely';

/**
 * Mail (docs/operations/setup.md, "Mail"; docs/adr/0085-mail-outbox.md). `mail_outbox`: each mail,
 * rendered and written in the transaction of the state change that causes it, then sent by the
 * mail worker under the worker lease, claimed like a webhook delivery (`claimed_by` the lease's
 * grant, `claimed_until` when a dead claim may be taken over). `dedupe_key` makes a replayed cause
 * queue nothing. `owner_notifications`: what an owner chose to be told by mail; no row is both on.
 * Portable SQL: both engines take the same statements.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind in ('receipt', 'refund_claim', 'exception', 'payout_in_review')`),
    )
    .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'sent', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create index mail_outbox_pending on mail_outbox (next_attempt_at) where status = 'pending'`.execute(db);
  await db.schema
    .createTable('owner_notifications')
    .addColumn('owner_id', 'text', (c) => c.primaryKey().references('owners.id'))
    .addColumn('exceptions', 'integer', (c) => c.notNull())
    .addColumn('payouts_in_review', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

/** The same tables on PostgreSQL. */
export const postgres = up;

/** No `down`: the way back is the backup taken before the upgrade (docs/operations/setup.md, "Upgrades"). */
