import { sql, type Kysely } from 'kysely';

/**
 * The merchant cabinet. `owners` are the accounts of merchant owners (email, argon2id password,
 * optional TOTP second factor), made by the operator; `owner_merchants` says which merchants each
 * account sees. `owner_setup_tokens` hold the one-time setup links (SHA-256 of the token; a token
 * is used once, before it expires) and `owner_sessions` the signed-in sessions (SHA-256 of the
 * session token; never the token). The three indexes serve the cabinet's lists of one merchant's
 * invoices, payouts and deposits, newest first, page by page.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('owners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text')
    .addColumn('totp_secret', 'text')
    .addColumn('totp_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('totp_pending_secret', 'text')
    .addColumn('totp_last_counter', 'integer')
    .addColumn('disabled_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint(
      'owners_totp_enabled',
      sql`totp_enabled in (0, 1) and (totp_enabled = 0 or totp_secret is not null)`,
    )
    .addCheckConstraint('owners_email_lower', sql`email = lower(email)`)
    .execute();
  await db.schema
    .createTable('owner_merchants')
    .addColumn('owner_id', 'text', (c) => c.notNull().references('owners.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('granted_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('owner_merchants_pk', ['owner_id', 'merchant_id'])
    .execute();
  await db.schema.createIndex('owner_merchants_merchant').on('owner_merchants').column('merchant_id').execute();
  await db.schema
    .createTable('owner_setup_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('owners.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('owner_setup_tokens_owner').on('owner_setup_tokens').column('owner_id').execute();
  await db.schema
    .createTable('owner_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('owners.id'))
    .addColumn('transport', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .addCheckConstraint('owner_sessions_transport', sql`transport in ('bearer', 'cookie')`)
    .execute();
  await db.schema.createIndex('owner_sessions_owner').on('owner_sessions').column('owner_id').execute();
  await db.schema
    .createIndex('invoices_merchant_created')
    .on('invoices')
    .columns(['merchant_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('payouts_merchant_created')
    .on('payouts')
    .columns(['merchant_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('deposits_merchant_created')
    .on('deposits')
    .columns(['merchant_id', 'created_at', 'id'])
    .execute();
}

/** Portable: the schema builder's statements above are PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('deposits_merchant_created').execute();
  await db.schema.dropIndex('payouts_merchant_created').execute();
  await db.schema.dropIndex('invoices_merchant_created').execute();
  await db.schema.dropTable('owner_sessions').execute();
  await db.schema.dropTable('owner_setup_tokens').execute();
  await db.schema.dropTable('owner_merchants').execute();
  await db.schema.dropTable('owners').execute();
}
