import { sql, type Kysely } from 'kysely';

/**
 * Invoices. The fee and the asset's decimals are copied onto the row at creation: an invoice keeps
 * the terms it was created with whatever the operator changes later. Amounts are TEXT base units.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Base units: digits only, at most 78 of them (2^256, a TRC20 uint256).
  const units = (col: string) =>
    sql`${sql.ref(col)} glob '[0-9]*' and ${sql.ref(col)} not glob '*[^0-9]*' and length(${sql.ref(col)}) <= 78`;
  await db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .check(sql`status in ('created', 'seen', 'confirmed', 'underpaid', 'expired', 'paid_late', 'settled')`),
    )
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('decimals', 'integer', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull().references('deposit_addresses.address'))
    .addColumn('external_user_id', 'text')
    .addColumn('amount_requested', 'text', (c) => c.notNull().check(units('amount_requested')))
    .addColumn('amount_expected', 'text', (c) => c.notNull().check(units('amount_expected')))
    .addColumn('amount_received', 'text', (c) => c.notNull().check(units('amount_received')))
    .addColumn('amount_credited', 'text', (c) => c.notNull().check(units('amount_credited')))
    .addColumn('service_fee_payer', 'text', (c) =>
      c.notNull().check(sql`service_fee_payer in ('merchant', 'customer')`),
    )
    .addColumn('service_fee_percent', 'text', (c) => c.notNull())
    .addColumn('service_fee_fixed', 'text', (c) => c.notNull().check(units('service_fee_fixed')))
    .addColumn('service_fee_amount', 'text', (c) => c.notNull().check(units('service_fee_amount')))
    .addColumn('return_url', 'text')
    .addColumn('cancel_url', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The idempotency key: one invoice per (merchant, order_id), enforced by the database itself.
  await db.schema.createIndex('invoices_order').on('invoices').columns(['merchant_id', 'order_id']).unique().execute();
  await db.schema.createIndex('invoices_expiry').on('invoices').columns(['status', 'expires_at']).execute();
  await db.schema.createIndex('invoices_address').on('invoices').columns(['address', 'status']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('invoices').execute();
}
