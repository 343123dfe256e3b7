import { sql, type Kysely } from 'kysely';

/**
 * What a ledger entry books, when it comes from outside the payout flow: e.g.
 * `deposit:<tx_hash>:<log_index>` for a settled deposit. UNIQUE when set, so a watcher that
 * re-processes a block (restart, fork re-scan) can never credit the same deposit twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ledger_entries').addColumn('source_ref', 'text').execute();
  await db.schema
    .createIndex('ledger_entries_source')
    .unique()
    .on('ledger_entries')
    .column('source_ref')
    .where(sql.ref('source_ref'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ledger_entries_source').execute();
  await db.schema.alterTable('ledger_entries').dropColumn('source_ref').execute();
}
