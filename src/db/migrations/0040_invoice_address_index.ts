import { sql, type Kysely } from 'kysely';

/**
 * The watcher finds the invoices of a deposit address through the address's derivation index
 * instead of the address text. An address is a hash: every new invoice puts its key at a random
 * place of `invoices_address`, and on a million invoices each creation reads and rewrites a leaf
 * of that index that is not in the cache, which slows creations on a large database. A per-invoice
 * address's
 * index grows with each address handed out, so its key lands at the end of the new index, on the
 * page the previous creation wrote. Queries also compare the address text, which stays the
 * authority. The backfill rewrites every invoice once: 23 s for 1.5 million on the bench machine.
 *
 * An older `serve` still running when this is applied inserts invoices without the column: a
 * trigger fills it for such a row (never for the code of this version, which sets it). Every step
 * may run again: kysely records a migration after it ends, in a statement of its own.
 */
export async function up(outer: Kysely<unknown>): Promise<void> {
  await outer.transaction().execute(async (db) => {
    const columns = await sql<{ name: string }>`select name from pragma_table_info('invoices')`.execute(db);
    if (!columns.rows.some((c) => c.name === 'address_index')) {
      await db.schema
        .alterTable('invoices')
        .addColumn('address_index', 'integer', (c) => c.references('deposit_addresses.derivation_index'))
        .execute();
    }
    await sql`update invoices set address_index = (select d.derivation_index from deposit_addresses d where d.address = invoices.address)
      where address_index is null`.execute(db);
    const missing = await sql<{ n: number }>`select count(*) as n from invoices where address_index is null`.execute(
      db,
    );
    if (Number(missing.rows[0]?.n ?? 0) > 0)
      throw new Error(
        `${missing.rows[0]?.n} invoice(s) have an address that is not a deposit address: the watcher could not find them`,
      );
    await sql`create trigger if not exists invoices_address_index_fill after insert on invoices when new.address_index is null
      begin
        update invoices set address_index = (select d.derivation_index from deposit_addresses d where d.address = new.address) where rowid = new.rowid;
      end`.execute(db);
    await db.schema
      .createIndex('invoices_address_index')
      .ifNotExists()
      .on('invoices')
      .columns(['address_index', 'status'])
      .execute();
    await db.schema.dropIndex('invoices_address').ifExists().execute();
  });
}

export async function down(outer: Kysely<unknown>): Promise<void> {
  await outer.transaction().execute(async (db) => {
    await db.schema
      .createIndex('invoices_address')
      .ifNotExists()
      .on('invoices')
      .columns(['address', 'status'])
      .execute();
    await sql`drop trigger if exists invoices_address_index_fill`.execute(db);
    await db.schema.dropIndex('invoices_address_index').ifExists().execute();
    await db.schema.alterTable('invoices').dropColumn('address_index').execute();
  });
}
