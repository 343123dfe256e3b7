import { sql, type Kysely } from 'kysely';

/**
 * Payouts, the operator's halts and each merchant's review limits.
 *
 * - UNIQUE (merchant_id, reference) is the idempotency key across processes: whatever the number
 *   of identical concurrent requests, one row (and so one reservation) exists.
 * - Amounts are TEXT base units of the asset at `decimals` (copied at creation).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const units = (col: string) => sql`${sql.ref(col)} glob '[0-9]*' and ${sql.ref(col)} not glob '*[^0-9]*'`;
  await db.schema
    .createTable('payouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .check(
          sql`status in ('pending_review', 'approved', 'queued', 'signing', 'broadcast', 'confirmed', 'rejected', 'failed')`,
        ),
    )
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('decimals', 'integer', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull().check(units('amount')))
    .addColumn('fee_amount', 'text', (c) => c.notNull().check(units('fee_amount')))
    .addColumn('fee_charged', 'text', (c) => c.notNull().check(units('fee_charged')))
    .addColumn('fee_schedule_id', 'integer')
    .addColumn('review_reasons', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text')
    .addColumn('reviewed_by', 'text')
    .addColumn('reviewed_at', 'text')
    .addColumn('reject_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payouts_reference')
    .unique()
    .on('payouts')
    .columns(['merchant_id', 'reference'])
    .execute();
  await db.schema
    .createIndex('payouts_merchant_asset_day')
    .on('payouts')
    .columns(['merchant_id', 'asset', 'created_at'])
    .execute();
  await db.schema
    .createIndex('payouts_merchant_address')
    .on('payouts')
    .columns(['merchant_id', 'asset', 'to_address'])
    .execute();
  await db.schema.createIndex('payouts_status').on('payouts').columns(['status', 'created_at']).execute();

  // A halt per scope: '*' (every asset) or an asset code. `requests` refuses new payout requests
  // with 503 payouts_halted; `worker` stops the payout worker from executing queued payouts.
  await db.schema
    .createTable('payout_halts')
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('requests', 'integer', (c) => c.notNull().check(sql`requests in (0, 1)`))
    .addColumn('worker', 'integer', (c) => c.notNull().check(sql`worker in (0, 1)`))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute();

  // Review limits per merchant, as decimal text in units of the payout's asset; null = no limit.
  await db.schema
    .createTable('merchant_payout_limits')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey().references('merchants.id'))
    .addColumn('auto_approve_limit', 'text')
    .addColumn('daily_limit', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('merchant_payout_limits').execute();
  await db.schema.dropTable('payout_halts').execute();
  await db.schema.dropTable('payouts').execute();
}
