import { sql, type Kysely } from 'kysely';

/**
 * Operator and merchant switches over the shipped asset catalog (config/assets.<network>.json).
 * The catalog itself stays in the file; only deviations from it live here, so a new catalog
 * release changes defaults without a data migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('asset_switches')
    .addColumn('asset', 'text', (c) => c.primaryKey())
    .addColumn('payments_enabled', 'integer', (c) => c.check(sql`payments_enabled in (0, 1)`))
    .addColumn('payouts_enabled', 'integer', (c) => c.check(sql`payouts_enabled in (0, 1)`))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('merchant_asset_switches')
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('payments_enabled', 'integer', (c) => c.notNull().check(sql`payments_enabled in (0, 1)`))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('merchant_asset_switches_pk', ['merchant_id', 'asset'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('merchant_asset_switches').execute();
  await db.schema.dropTable('asset_switches').execute();
}
