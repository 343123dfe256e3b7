import { sql, type Kysely } from 'kysely';

/**
 * A restored backup is the past: the deposit indexes handed out since it was taken are not in it.
 * `paygate restore` raises the next index past all of them and records the skipped range in
 * `derivation_gaps` (both ends included). The range's addresses stay watched through
 * `unattributed_addresses` (its unique index on the address is what the watcher looks up), and a
 * payment to one of them is an `unattributed_deposits` row: the operator's to decide, never a
 * merchant's credit. A fork removes the rows of the blocks it replaced; the rescan finds them again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('derivation_gaps')
    .addColumn('from_index', 'integer', (c) => c.primaryKey())
    .addColumn('to_index', 'integer', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addCheckConstraint('derivation_gaps_range', sql`to_index >= from_index`)
    .execute();
  await db.schema
    .createTable('unattributed_addresses')
    .addColumn('derivation_index', 'integer', (c) => c.primaryKey())
    .addColumn('address', 'text', (c) => c.notNull().unique())
    .execute();
  await db.schema
    .createTable('unattributed_deposits')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('log_index', 'integer', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull().references('unattributed_addresses.address'))
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('decimals', 'integer', (c) => c.notNull())
    .addColumn('from_address', 'text')
    .addColumn('block_number', 'integer', (c) => c.notNull())
    .addColumn('block_hash', 'text', (c) => c.notNull())
    .addColumn('block_time', 'text', (c) => c.notNull())
    .addColumn('detected_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('unattributed_deposits_transfer', ['tx_hash', 'log_index'])
    .execute();
  await db.schema
    .createIndex('unattributed_deposits_by_block')
    .on('unattributed_deposits')
    .column('block_number')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('unattributed_deposits').execute();
  await db.schema.dropTable('unattributed_addresses').execute();
  await db.schema.dropTable('derivation_gaps').execute();
}
