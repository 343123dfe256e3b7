/**
 * SQL fragments whose spelling differs between the engines (docs/database.md). Each takes the
 * executor the query runs on and gives the same meaning on both: SQLite's planner hints where
 * SQLite needs them, nothing on PostgreSQL, whose planner keeps statistics of its own.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { engineOf } from './engine.js';
import type { Executor } from './database.js';

/**
 * `column` compared or grouped by value. On SQLite the unary `+` keeps its index out of the plan
 * (serve runs no ANALYZE, and without statistics SQLite would pick the wrong index); PostgreSQL
 * has no unary plus on text and needs no hint.
 */
export function byValue<T = unknown>(db: Executor, column: string): RawBuilder<T> {
  return engineOf(db) === 'sqlite' ? sql<T>`+${sql.ref(column)}` : sql<T>`${sql.ref(column)}`;
}

/** `indexed by <index>` on SQLite (the plan the query was measured with), nothing on PostgreSQL. */
export function indexedBy(db: Executor, index: string): RawBuilder<unknown> {
  return engineOf(db) === 'sqlite' ? sql`indexed by ${sql.raw(index)}` : sql``;
}

/** Whether a table of this name exists (in the connection's schema, on PostgreSQL). */
export async function tableExists(db: Executor, name: string): Promise<boolean> {
  const r =
    engineOf(db) === 'sqlite'
      ? await sql<{
          n: number;
        }>`select count(*) as n from sqlite_master where type = 'table' and name = ${name}`.execute(db)
      : await sql<{ n: number }>`select count(*) as n from information_schema.tables
          where table_schema = current_schema() and table_name = ${name}`.execute(db);
  return Number(r.rows[0]?.n ?? 0) > 0;
}

/**
 * The order rows of a table were inserted in: SQLite's rowid; on PostgreSQL, which has none, the
 * table's time-ordered key (`key`, a UUIDv7 or prefixed time-ordered id, ids.ts).
 */
export function insertionOrder(db: Executor, key: string): RawBuilder<unknown> {
  return engineOf(db) === 'sqlite' ? sql`rowid` : sql`${sql.ref(key)}`;
}

/**
 * The database's clock as milliseconds since the epoch, read by the statement that uses it: on
 * PostgreSQL the server's (one clock for processes on several hosts), on SQLite the host's.
 */
export function databaseClockMs(db: Executor): RawBuilder<number> {
  return engineOf(db) === 'sqlite'
    ? sql<number>`cast(round((julianday('now') - 2440587.5) * 86400000) as integer)`
    : sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;
}

/**
 * A select-list term that, on PostgreSQL, ends this transaction's session if it is left idle
 * inside the transaction longer than `ms` (a process stopped mid-transaction: its row locks go
 * with it instead of blocking every other process); nothing on SQLite, whose writer lock is held
 * by one host's process and released when that process dies.
 */
export function idleTransactionLimit(db: Executor, ms: number): RawBuilder<unknown> {
  return engineOf(db) === 'sqlite'
    ? sql`null`
    : sql`set_config('idle_in_transaction_session_timeout', ${String(Math.round(ms))}, true)`;
}

/**
 * `column` starts with `text` (case as stored), in a form each engine's index walks: on SQLite a
 * range under its byte-wise BINARY order (`>= text AND < text || U+10FFFF`); on PostgreSQL
 * `LIKE 'text%'` with `%`, `_` and `\` escaped, served by a `text_pattern_ops` index whatever the
 * database's collation.
 */
export function startsWith(db: Executor, column: RawBuilder<unknown>, text: string): RawBuilder<SqlBool> {
  if (engineOf(db) === 'sqlite') return sql<SqlBool>`(${column} >= ${text} and ${column} < ${`${text}\u{10FFFF}`})`;
  return sql<SqlBool>`${column} like ${`${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`;
}
