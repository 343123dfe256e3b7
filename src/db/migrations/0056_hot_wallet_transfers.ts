import { sql, type Kysely } from 'kysely';

/**
 * The chain is the record of what left the hot wallet (docs/adr/0068-the-chain-says-which-payouts-were-sent.md).
 * `hot_wallet_transfers`: every transfer out of the hot wallet the watcher saw, unique by
 * (transaction, log index), with what it is: a payout's or a sweep's signed transaction, a payout
 * matched after a restore, or unknown (paygate did not sign it). A fork removes the rows of the
 * blocks it replaced, by `hot_wallet_transfers_by_block`. `restore_reading` (one row): the reading
 * of the chain after a restore, from the backup's height, and whether it is done.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('hot_wallet_transfers')
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('log_index', 'integer', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('decimals', 'integer', (c) => c.notNull())
    .addColumn('block_number', 'integer', (c) => c.notNull())
    .addColumn('block_hash', 'text', (c) => c.notNull())
    .addColumn('block_time', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('payout', 'sweep', 'restore_match', 'unknown')`))
    .addColumn('payout_id', 'text', (c) => c.references('payouts.id'))
    .addColumn('sweep_id', 'text', (c) => c.references('sweeps.id'))
    .addColumn('detected_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('hot_wallet_transfers_pk', ['tx_hash', 'log_index'])
    .execute();
  await db.schema
    .createIndex('hot_wallet_transfers_by_block')
    .on('hot_wallet_transfers')
    .column('block_number')
    .execute();
  await db.schema
    .createIndex('hot_wallet_transfers_by_kind')
    .on('hot_wallet_transfers')
    .columns(['kind', 'asset', 'to_address'])
    .execute();
  await db.schema
    .createTable('restore_reading')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('from_block', 'integer')
    .addColumn('from_time', 'text', (c) => c.notNull())
    .addColumn('until_block', 'integer')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('started_by', 'text', (c) => c.notNull())
    .addColumn('done_at', 'text')
    .addColumn('matched', 'integer')
    .addColumn('unresolved', 'integer')
    .execute();
}

/** Portable: the schema builder's statements above are PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('restore_reading').execute();
  await db.schema.dropTable('hot_wallet_transfers').execute();
}
