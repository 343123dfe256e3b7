import { sql, type Kysely } from 'kysely';

/**
 * Every fee the operator sets is a dated row: the rate in force at a moment is the row with the
 * latest valid_from not after it. Rows are never updated or deleted, so the history of rates is
 * the table itself. kind 'service' is per merchant (percent + payer), 'invoice' is the fixed
 * receiving amount per asset, 'payout' is per asset with amount and percent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('fee_schedules')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('service', 'invoice', 'payout')`))
    .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
    .addColumn('asset', 'text')
    .addColumn('percent', 'text')
    .addColumn('amount', 'text', (c) =>
      c.check(sql`amount is null or (amount glob '[0-9]*' and amount not glob '*[^0-9]*')`),
    )
    .addColumn('payer', 'text', (c) => c.check(sql`payer is null or payer in ('merchant', 'customer')`))
    .addColumn('valid_from', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('fee_schedules_lookup')
    .on('fee_schedules')
    .columns(['kind', 'merchant_id', 'asset', 'valid_from'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('fee_schedules').execute();
}
