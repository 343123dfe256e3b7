import { sql, type Kysely } from 'kysely';

/**
 * `watcher_stop` (one row while it applies): the node showed that a block the watcher had treated
 * as final is not on its chain. The watcher, the sweeper and the payout worker stand still until
 * the operator runs `paygate watcher resume` (resumed_at), after which the watcher follows the
 * node's chain once and the row goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('watcher_stop')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('scanned_hash', 'text', (c) => c.notNull())
    .addColumn('node_hash', 'text', (c) => c.notNull())
    .addColumn('final_height', 'integer', (c) => c.notNull())
    .addColumn('stopped_at', 'text', (c) => c.notNull())
    .addColumn('resumed_at', 'text')
    .addColumn('resumed_by', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('watcher_stop').execute();
}
