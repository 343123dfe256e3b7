import { sql, type Kysely } from 'kysely';

/**
 * Accounting and control (docs/reports.md, docs/operations/month-end.md "Month-end").
 *
 * - Report indexes: a report reads its period in keyset batches ordered by time then id
 *   (src/reports). Each index leads with the time and carries the merchant, so a merchant's report
 *   filters inside the index without reading rows of other merchants:
 *   `invoices_period` (created_at, id, merchant_id), `deposits_period` (block_time, id,
 *   merchant_id); payouts already have `payouts_created` (created_at, id). `ledger_entries_period`
 *   (merchant_id, asset, created_at, seq) finds an account's last entry before a moment in one
 *   search: the opening and closing balances of the ledger report.
 * - `reserve_checks`: each reserves check (`paygate reserves`, the daily job), one row per asset,
 *   its figures as JSON of decimal texts; the latest run feeds the `paygate_reserves_*` metrics and
 *   the `/readyz` detail.
 * - API key governance: `label`, `expires_at` (a key is refused from then on), `allowed_networks`
 *   (JSON array of CIDRs; null: any client address) and `last_used_at` (written at most once a
 *   minute per key); `api_keys_expiring` finds the active keys about to expire.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('invoices_period').on('invoices').columns(['created_at', 'id', 'merchant_id']).execute();
  await db.schema.createIndex('deposits_period').on('deposits').columns(['block_time', 'id', 'merchant_id']).execute();
  await db.schema
    .createIndex('ledger_entries_period')
    .on('ledger_entries')
    .columns(['merchant_id', 'asset', 'created_at', 'seq'])
    .execute();

  await db.schema
    .createTable('reserve_checks')
    .addColumn('checked_at', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('covered', 'integer', (c) => c.notNull().check(sql`covered in (0, 1)`))
    .addColumn('figures', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('reserve_checks_pk', ['checked_at', 'asset'])
    .execute();

  for (const column of ['label', 'expires_at', 'allowed_networks', 'last_used_at'])
    await db.schema.alterTable('api_keys').addColumn(column, 'text').execute();
  // The daily look for keys about to expire, and its metric, search this rather than every key.
  await db.schema
    .createIndex('api_keys_expiring')
    .on('api_keys')
    .column('expires_at')
    .where(sql.ref('revoked_at'), 'is', null)
    .execute();
}

/** Portable: the schema builder's statements above are PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_expiring').execute();
  for (const column of ['last_used_at', 'allowed_networks', 'expires_at', 'label'])
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  await db.schema.dropTable('reserve_checks').execute();
  await db.schema.dropIndex('ledger_entries_period').execute();
  await db.schema.dropIndex('deposits_period').execute();
  await db.schema.dropIndex('invoices_period').execute();
}
