import { sql, type Kysely } from 'kysely';

/**
 * Payout whitelist: an address a merchant may pay out to in one asset, usable from `usable_from`
 * (the delay before first use). Removal is a mark, not a delete, so the history stays; at most one
 * live (not removed) entry per merchant, asset and address.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('whitelist_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('usable_from', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('removed_at', 'text')
    .addColumn('removed_by', 'text')
    .execute();
  await db.schema
    .createIndex('whitelist_entries_live')
    .unique()
    .on('whitelist_entries')
    .columns(['merchant_id', 'asset', 'address'])
    .where(sql.ref('removed_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('whitelist_entries').execute();
}
