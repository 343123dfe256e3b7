import { sql, type Kysely } from 'kysely';

/**
 * Exceptions (docs/exceptions.md): a payment or payout that needs a person, written in the same
 * transaction as the state that causes it. One open exception per subject (the invoice, else the
 * payout, else the deposit), kind and asset: partial unique indexes make a second writer update
 * the first one's row instead of adding another (docs/adr/0077-exceptions.md). Portable SQL: both
 * engines take the same statements.
 */
const KINDS = sql`kind in ('underpaid', 'overpaid', 'paid_late', 'foreign_asset', 'unattributed', 'payout_held')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('exceptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(KINDS))
    .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
    .addColumn('invoice_id', 'text', (c) => c.references('invoices.id'))
    .addColumn('payout_id', 'text', (c) => c.references('payouts.id'))
    .addColumn('deposit_id', 'text')
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('decimals', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .addColumn('resolved_by', 'text')
    .addColumn('resolution_note', 'text')
    .addColumn('refund_id', 'text')
    .execute();
  // NULLs are distinct in a unique index on both engines: each index holds only its subject's rows.
  await sql`create unique index exceptions_open_per_invoice on exceptions (kind, invoice_id, asset)
    where resolved_at is null`.execute(db);
  await sql`create unique index exceptions_open_per_payout on exceptions (kind, payout_id)
    where resolved_at is null`.execute(db);
  await sql`create unique index exceptions_open_per_deposit on exceptions (kind, deposit_id)
    where resolved_at is null and invoice_id is null`.execute(db);
  await db.schema.createIndex('exceptions_by_merchant').on('exceptions').columns(['merchant_id', 'id']).execute();
  await db.schema.createIndex('exceptions_by_invoice').on('exceptions').column('invoice_id').execute();
}

export const postgres = up;

/** No `down`: the way back is the backup taken before the upgrade (docs/operations/setup.md, "Upgrades"). */
