import { sql, type Kysely } from 'kysely';

/**
 * The chain watcher's state.
 *
 * - `chain_cursor` (one row): the next block to scan, the time of the last block scanned (the
 *   expiry horizon: an invoice never expires before the watcher has looked past its expires_at),
 *   and the head and solid heights seen with it. Moved in the same transaction as the deposits.
 * - `scanned_blocks`: number → hash of scanned blocks not yet below the solid height, to notice a
 *   fork (parent hash mismatch) and find the common ancestor.
 * - `deposits.credited_amount`: what was booked to the ledger for that deposit (its share of the
 *   invoice's credit, or the standalone amount less its fee); null until credited.
 * - `deposits.fee_amount`: the service fee taken from a standalone deposit (null for invoice deposits,
 *   whose fee is the invoice's).
 * - `events_subject`: the count of a subject's events makes the dedupe key of a re-entered status.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('chain_cursor')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('next_block', 'integer', (c) => c.notNull())
    .addColumn('last_block_time', 'text')
    .addColumn('head_number', 'integer', (c) => c.notNull())
    .addColumn('solid_number', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('scanned_blocks')
    .addColumn('number', 'integer', (c) => c.primaryKey())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('parent_hash', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('deposits').addColumn('credited_amount', 'text').execute();
  await db.schema.alterTable('deposits').addColumn('fee_amount', 'text').execute();
  await db.schema.createIndex('deposits_address').on('deposits').columns(['address', 'status']).execute();
  // Event dedupe keys count a subject's events (a status re-entered after a fork gets a new key).
  await db.schema.createIndex('events_subject').on('events').columns(['subject_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('events_subject').execute();
  await db.schema.dropIndex('deposits_address').execute();
  await db.schema.alterTable('deposits').dropColumn('fee_amount').execute();
  await db.schema.alterTable('deposits').dropColumn('credited_amount').execute();
  await db.schema.dropTable('scanned_blocks').execute();
  await db.schema.dropTable('chain_cursor').execute();
}
