import type { Kysely } from 'kysely';

/**
 * Indexes for queries that must not grow with the table (test/db/query-plans.test.ts):
 * `payout list` without a status filter reads the newest payouts first, which without an index
 * on created_at sorts the whole table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('payouts_created').on('payouts').columns(['created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('payouts_created').execute();
}
