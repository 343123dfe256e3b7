import { sql, type Kysely } from 'kysely';

/**
 * The chain this database belongs to: the id of the node's genesis block (block 0), recorded at
 * the first contact with the node (`init` or `serve`). A node that answers another genesis block is
 * refused (chain/identity.ts): deposits, cursors and payouts of one chain mean nothing on another.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('chain_identity')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('genesis_block_id', 'text', (c) => c.notNull().check(sql`length(genesis_block_id) = 64`))
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('chain_identity').execute();
}
