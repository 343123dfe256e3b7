import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('merchants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('address_mode', 'text', (c) => c.notNull().check(sql`address_mode in ('per_invoice', 'per_user')`))
    .addColumn('approval', 'text', (c) => c.notNull().check(sql`approval in ('pending', 'approved', 'rejected')`))
    .addColumn('enabled', 'integer', (c) => c.notNull().check(sql`enabled in (0, 1)`))
    .addColumn('site_url', 'text')
    .addColumn('return_url', 'text')
    .addColumn('cancel_url', 'text')
    .addColumn('legacy_network_fee_payer', 'text', (c) => c.check(sql`legacy_network_fee_payer in ('customer')`))
    .addColumn('confirmations', 'integer', (c) => c.check(sql`confirmations between 1 and 1000`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey().check(sql`length(key_id) = 16`))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_merchant').on('api_keys').column('merchant_id').execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_subject').on('audit_log').columns(['subject_type', 'subject_id']).execute();

  // The outbox: every state change writes its event here in the same transaction; the webhook
  // dispatcher turns events into deliveries after commit. seq orders events per merchant.
  await db.schema
    .createTable('events')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_merchant').on('events').columns(['merchant_id', 'seq']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('events').execute();
  await db.schema.dropTable('audit_log').execute();
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('merchants').execute();
}
