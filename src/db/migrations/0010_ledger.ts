import { sql, type Kysely } from 'kysely';

/**
 * The merchant ledger: append-only entries per merchant and asset. Every entry changes exactly one
 * of two running totals and carries both totals after it (balance = credits − debits, reserved =
 * reservations − releases), so the current balance is the last entry and the history proves it.
 * Rows are never updated or deleted.
 *
 * - UNIQUE (merchant_id, asset, seq): two writers can never both extend the same tail.
 * - UNIQUE (payout_id, kind): a payout has at most one reservation, one release and one debit, so
 *   a retried worker step can never release or debit twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const units = (col: string) => sql`${sql.ref(col)} glob '[0-9]*' and ${sql.ref(col)} not glob '*[^0-9]*'`;
  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull().check(sql`seq >= 1`))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('credit', 'debit', 'reserve', 'release')`))
    .addColumn('amount', 'text', (c) => c.notNull().check(sql`${units('amount')} and amount not glob '0*'`))
    .addColumn('balance_after', 'text', (c) => c.notNull().check(units('balance_after')))
    .addColumn('reserved_after', 'text', (c) => c.notNull().check(units('reserved_after')))
    .addColumn('payout_id', 'text')
    .addColumn('memo', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ledger_entries_tail')
    .unique()
    .on('ledger_entries')
    .columns(['merchant_id', 'asset', 'seq'])
    .execute();
  await db.schema
    .createIndex('ledger_entries_payout')
    .unique()
    .on('ledger_entries')
    .columns(['payout_id', 'kind'])
    .where(sql.ref('payout_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ledger_entries').execute();
}
