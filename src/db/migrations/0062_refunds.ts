import { sql, type Kysely } from 'kysely';

/**
 * Refunds (docs/refunds.md): one row per refund of an invoice. A refund's reservation is a ledger
 * entry whose source is `refund:<id>` until its payout (UNIQUE payout_id) takes it over.
 */
const STATUSES = sql`status in ('awaiting_address', 'requested', 'sent', 'failed', 'canceled', 'expired')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('decimals', 'integer', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('fee_amount', 'text', (c) => c.notNull())
    .addColumn('fee_schedule_id', 'integer')
    .addColumn('reason', 'text')
    .addColumn('exception_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(STATUSES))
    .addColumn('claim_url', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('payout_id', 'text', (c) => c.unique().references('payouts.id'))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('refunds_by_merchant').on('refunds').columns(['merchant_id', 'created_at']).execute();
  await db.schema.createIndex('refunds_by_invoice').on('refunds').column('invoice_id').execute();
  await db.schema.createIndex('refunds_by_status').on('refunds').columns(['status', 'expires_at']).execute();
}

export const postgres = up;

/** No `down`: the way back is the backup taken before the upgrade (docs/operations/setup.md, "Upgrades"). */
