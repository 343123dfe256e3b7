/**
 * The one schema change SQLite's ALTER TABLE cannot make in place and a table rebuild would make
 * at the price of copying a million rows: removing a FOREIGN KEY clause. SQLite documents the way
 * for exactly this ("Making Other Kinds Of Table Schema Changes", lang_altertable.html): rewrite
 * the table's CREATE TABLE text in sqlite_schema with writable_schema on and bump schema_version,
 * all inside the migration's transaction. The file's pages are not touched, so nothing else moves.
 *
 * better-sqlite3 opens connections in SQLite's defensive mode, which forbids writing
 * sqlite_schema: it is lifted on the migration run's writer for this one statement only.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';

/** The migration run's writer connection, as its transaction handle answers it (migrate.ts). */
export const WRITER_CONNECTION = Symbol('paygate.migrationWriter');

/**
 * Replaces the CREATE TABLE text of `table` by `edit(text)`. Throws (and the whole migration run
 * rolls back) unless the text changed: an edit that matched nothing must not pass as applied.
 */
export function rewriteTableSql(db: Kysely<unknown>, table: string, edit: (createSql: string) => string): void {
  const conn = (db as unknown as Record<symbol, BetterSqlite3.Database | undefined>)[WRITER_CONNECTION];
  if (!conn) throw new Error('a table definition is rewritten only inside a migration run (migrateToLatest)');
  if (!conn.inTransaction) throw new Error('a table definition is rewritten only inside the migration transaction');
  const before = conn.prepare("select sql from sqlite_schema where type = 'table' and name = ?").pluck().get(table) as string | undefined;
  if (before === undefined) throw new Error(`no table ${table}`);
  const after = edit(before);
  if (after === before) throw new Error(`the definition of ${table} did not change: ${before}`);
  const version = conn.pragma('schema_version', { simple: true }) as number;
  conn.unsafeMode(true);
  try {
    conn.pragma('writable_schema = ON');
    conn.prepare("update sqlite_schema set sql = ? where type = 'table' and name = ?").run(after, table);
    // Every connection (this one included) re-reads the schema when the version moves.
    conn.pragma(`schema_version = ${version + 1}`);
  } finally {
    try {
      conn.pragma('writable_schema = OFF');
    } finally {
      conn.unsafeMode(false);
    }
  }
}
