import { sql, type Kysely } from 'kysely';

/**
 * The watcher finds the invoices of a deposit address through the address's derivation index
 * instead of the address text. An address is a hash: every new invoice put its key at a random
 * place of `invoices_address`, and on a million invoices each creation read and rewrote a leaf of
 * that index that was not in the cache (one of the two reasons creations ran at 0.6 of their
 * speed on an empty database; decisions.md, "Release 3, third round"). A per-invoice address's
 * index grows with each address handed out, so its key lands at the end of the new index, on the
 * page the previous creation wrote. Queries also compare the address text, which stays the
 * authority. The backfill rewrites every invoice once: 23 s for 1.5 million on the bench machine.
 */
export async function up(outer: Kysely<unknown>): Promise<void> {
  // One transaction (kysely's SQLite migrator runs none): an interrupted run leaves nothing behind.
  await outer.transaction().execute(async (db) => {
    await db.schema
      .alterTable('invoices')
      .addColumn('address_index', 'integer', (c) => c.references('deposit_addresses.derivation_index'))
      .execute();
    await sql`update invoices set address_index = (select d.derivation_index from deposit_addresses d where d.address = invoices.address)`.execute(db);
    await db.schema.createIndex('invoices_address_index').on('invoices').columns(['address_index', 'status']).execute();
    await db.schema.dropIndex('invoices_address').execute();
  });
}

export async function down(outer: Kysely<unknown>): Promise<void> {
  await outer.transaction().execute(async (db) => {
    await db.schema.createIndex('invoices_address').on('invoices').columns(['address', 'status']).execute();
    await db.schema.dropIndex('invoices_address_index').execute();
    await db.schema.alterTable('invoices').dropColumn('address_index').execute();
  });
}
