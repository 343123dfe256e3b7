import { sql, type Kysely } from 'kysely';

/**
 * Indexes for scheduled queries that would otherwise grow with their table
 * (docs/adr/0036-queries-stay-index-searches.md; test/db/query-plans.test.ts):
 *
 * - `payouts_signed_day`: the payout worker's hot wallet day limit sums what was signed today in
 *   an asset, for each queued payout on every tick while a day limit is set. Through
 *   `payouts_status` that walks every confirmed payout ever (or scans the whole table); with this
 *   index it reads today's payouts of the asset only.
 * - `sweep_marks_held`: the marks whose last check found a balance below the threshold. Without
 *   it a `paygate sweep` of every address (and `wallet show`) reads them by scanning every mark,
 *   one per address and asset ever checked (800,000 on a million-invoice database).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('payouts_signed_day').on('payouts').columns(['asset', 'first_signed_at']).execute();
  await db.schema
    .createIndex('sweep_marks_held')
    .on('sweep_marks')
    .column('asset')
    .where(sql.ref('balance'), '!=', sql.lit('0'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sweep_marks_held').execute();
  await db.schema.dropIndex('payouts_signed_day').execute();
}
