import { sql, type Kysely } from 'kysely';

/**
 * Webhooks (docs/webhooks.md).
 *
 * - `webhook_endpoints`: one endpoint per merchant with its signing secret (and the previous one
 *   during a rotation) and whether private targets are allowed.
 * - `merchant_event_sequences` and `events.merchant_seq`: each event gets the next number of its
 *   merchant in the event's own transaction. The counter row is updated by every event of the
 *   merchant, so two transactions emitting for one merchant are serialised on it and commit in
 *   number order, whatever the database (the global `seq` only has that property under SQLite's
 *   single writer). Events recorded before this migration keep merchant_seq null.
 * - `webhook_deliveries`: one per event of a merchant that had an endpoint when the event was
 *   recorded; `webhook_attempts`: the delivery log (every attempt, pruned after 60 days).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey().references('merchants.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'text')
    .addColumn('allow_private', 'integer', (c) => c.notNull().check(sql`allow_private in (0, 1)`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('merchant_event_sequences')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey().references('merchants.id'))
    .addColumn('last_seq', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('events').addColumn('merchant_seq', 'integer').execute();
  await db.schema
    .createIndex('events_merchant_seq')
    .unique()
    .on('events')
    .columns(['merchant_id', 'merchant_seq'])
    .where(sql.ref('merchant_seq'), 'is not', null)
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().unique().references('events.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('merchant_seq', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('window_attempts', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'text')
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The dispatcher's question: the oldest pending delivery of each merchant.
  await db.schema
    .createIndex('webhook_deliveries_pending')
    .on('webhook_deliveries')
    .columns(['merchant_id', 'merchant_seq'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_merchant')
    .on('webhook_deliveries')
    .columns(['merchant_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_status')
    .on('webhook_deliveries')
    .columns(['status', 'updated_at'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('delivered', 'retry', 'failed')`))
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'attempt'])
    .execute();
  await db.schema.createIndex('webhook_attempts_at').on('webhook_attempts').column('at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropIndex('events_merchant_seq').execute();
  await db.schema.alterTable('events').dropColumn('merchant_seq').execute();
  await db.schema.dropTable('merchant_event_sequences').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
