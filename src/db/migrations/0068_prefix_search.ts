import { sql, type Kysely } from 'kysely';

/**
 * The cabinet's search finds records by the start of an order id, reference, address or
 * transaction hash, within one merchant. SQLite compares text byte by byte (BINARY), so a range
 * `>= q AND < q || U+10FFFF` walks these indexes; PostgreSQL's `LIKE 'q%'` needs the
 * `text_pattern_ops` operator class whatever the database's collation.
 */
const INDEXES = [
  ['invoices_search_order', 'invoices', 'order_id'],
  ['invoices_search_address', 'invoices', 'address'],
  ['page_invoices_search_order', 'page_invoices', 'order_id'],
  ['deposits_search_tx', 'deposits', 'tx_hash'],
  ['payouts_search_reference', 'payouts', 'reference'],
  ['payouts_search_address', 'payouts', 'to_address'],
  ['payouts_search_tx', 'payouts', 'tx_hash'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, column] of INDEXES)
    await db.schema.createIndex(name).on(table).columns(['merchant_id', column]).execute();
}

export async function postgres(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, column] of INDEXES)
    await sql`create index ${sql.id(name)} on ${sql.id(table)} (merchant_id, ${sql.id(column)} text_pattern_ops)`.execute(
      db,
    );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}
