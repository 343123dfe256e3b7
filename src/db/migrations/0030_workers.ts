import { sql, type Kysely } from 'kysely';

/**
 * The worker lease and the deposits the chain watcher records.
 *
 * - `worker_lease`: one row (docs/adr/0023-the-worker-lease.md); `token` grows with every new grant
 *   (fencing).
 * - `deposits`: one row per transfer into a deposit address, UNIQUE (tx_hash, log_index) so a block
 *   scanned twice (restart, fork re-scan) records nothing twice; `log_index` is -1 for a native TRX
 *   transfer. An orphaned deposit (its block left the chain) keeps its row with status `orphaned`;
 *   when the same transaction is included again it becomes the same deposit again.
 * - `events.dedupe_key`: a unique key per state transition, so a transition replayed after a crash
 *   or a re-scan cannot emit its event twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('worker_lease')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('token', 'integer', (c) => c.notNull())
    .addColumn('acquired_at', 'text', (c) => c.notNull())
    .addColumn('renewed_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();

  const units = sql`amount glob '[0-9]*' and amount not glob '*[^0-9]*'`;
  await db.schema
    .createTable('deposits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('decimals', 'integer', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull().check(units))
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('log_index', 'integer', (c) => c.notNull())
    .addColumn('from_address', 'text')
    .addColumn('block_number', 'integer', (c) => c.notNull())
    .addColumn('block_hash', 'text', (c) => c.notNull())
    .addColumn('block_time', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.references('invoices.id'))
    .addColumn('external_user_id', 'text')
    .addColumn('late', 'integer', (c) => c.notNull().check(sql`late in (0, 1)`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('seen', 'confirmed', 'orphaned')`))
    .addColumn('confirmations', 'integer', (c) => c.notNull())
    .addColumn('final', 'integer', (c) => c.notNull().check(sql`final in (0, 1)`))
    .addColumn('credited_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deposits_tx_log').unique().on('deposits').columns(['tx_hash', 'log_index']).execute();
  await db.schema.createIndex('deposits_invoice').on('deposits').columns(['invoice_id', 'block_number']).execute();
  await db.schema
    .createIndex('deposits_merchant_address')
    .on('deposits')
    .columns(['merchant_id', 'address', 'created_at'])
    .execute();
  // The watcher's per-block work: deposits not yet final, by block.
  await db.schema
    .createIndex('deposits_open')
    .on('deposits')
    .columns(['block_number'])
    .where(sql.ref('final'), '=', 0)
    .execute();

  await db.schema.alterTable('events').addColumn('dedupe_key', 'text').execute();
  await db.schema
    .createIndex('events_dedupe_key')
    .unique()
    .on('events')
    .column('dedupe_key')
    .where(sql.ref('dedupe_key'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('events_dedupe_key').execute();
  await db.schema.alterTable('events').dropColumn('dedupe_key').execute();
  await db.schema.dropTable('deposits').execute();
  await db.schema.dropTable('worker_lease').execute();
}
