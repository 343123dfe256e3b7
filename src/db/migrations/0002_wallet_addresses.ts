import { sql, type Kysely } from 'kysely';

/**
 * The wallet's public half and the deposit addresses. The seed never enters the database: the row
 * keeps the deposit account xpub (m/44'/195'/0'/0) so the API derives addresses without the seed,
 * and the next derivation index, which only ever grows (an index is never handed out twice).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallet')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('deposit_xpub', 'text', (c) => c.notNull())
    .addColumn('deposit_path', 'text', (c) => c.notNull())
    .addColumn('hot_address', 'text', (c) => c.notNull())
    .addColumn('hot_path', 'text', (c) => c.notNull())
    .addColumn('next_index', 'integer', (c) => c.notNull().check(sql`next_index >= 0`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // One row per handed-out address. external_user_id is set for permanent (per_user) addresses;
  // SQLite's UNIQUE lets many NULLs through, so per-invoice addresses do not collide.
  await db.schema
    .createTable('deposit_addresses')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('derivation_index', 'integer', (c) =>
      c
        .notNull()
        .unique()
        .check(sql`derivation_index >= 0`),
    )
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('external_user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('deposit_addresses_user')
    .on('deposit_addresses')
    .columns(['merchant_id', 'external_user_id'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('deposit_addresses').execute();
  await db.schema.dropTable('wallet').execute();
}
