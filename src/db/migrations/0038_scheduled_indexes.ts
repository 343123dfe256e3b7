import { sql, type Kysely } from 'kysely';

/**
 * Indexes for scheduled queries that grew with their table (issue 12, docs/decisions.md "Every
 * scheduled query, audited"; test/db/query-plans.test.ts):
 *
 * - `payouts_signed_day`: the payout worker's hot wallet day limit sums what was signed today in
 *   an asset, for each queued payout on every tick while a day limit is set. Through
 *   `payouts_status` that walked every confirmed payout ever on a fresh database (and scanned
 *   the whole table on the 1M one); now it reads today's payouts of the asset only.
 * - `sweep_marks_held`: the marks whose last check found a balance below the threshold. A
 *   `paygate sweep` of every address (and `wallet show`) read them by scanning every mark, one per
 *   address and asset ever checked (800,000 on the 1M database, 65 ms on the event loop).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('payouts_signed_day').on('payouts').columns(['asset', 'first_signed_at']).execute();
  await db.schema.createIndex('sweep_marks_held').on('sweep_marks').column('asset').where(sql.ref('balance'), '!=', sql.lit('0')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sweep_marks_held').execute();
  await db.schema.dropIndex('payouts_signed_day').execute();
}
