/**
 * Which engine the tests run on, and fresh databases of it. `PAYGATE_TEST_DATABASE=postgres` runs
 * them on PostgreSQL (docs/database.md, "Tests on PostgreSQL"): every test app and every database a
 * test opens is a database of its own, `paygate_t_<pid>_<random>`, created on the server that
 * `PAYGATE_TEST_POSTGRES_URL` names (default: the local server as user postgres) as a copy of the
 * run's migrated template (postgres-setup.ts), and dropped when it is closed or, at the latest,
 * when the test process exits. Test files then run in parallel without sharing anything.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, inject } from 'vitest';
import { openDatabase, type Database, type Db, type Engine } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase, type TestPostgres } from './postgres-server.js';

export { admin, POSTGRES_ADMIN_URL, postgresUrl, type TestPostgres } from './postgres-server.js';

export const TEST_ENGINE: Engine = process.env.PAYGATE_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
export const ON_POSTGRES = TEST_ENGINE === 'postgres';

export interface NewDatabaseOptions {
  /**
   * Migrated (the default): a copy of the run's template, as `paygate migrate` leaves a database;
   * migrating it again applies nothing. Empty: for the tests of migrating itself.
   */
  empty?: boolean;
}

/** A new PostgreSQL database on the test server: empty, unless `migrated`. */
export function createPostgresDatabase(opts: { migrated?: boolean } = {}): Promise<TestPostgres> {
  // Given by postgres-setup.ts; without it (a run without the global setup) the database starts
  // empty, and the app or the test migrates it.
  return createTestDatabase(opts.migrated ? inject('postgresTemplate') : undefined);
}

let sqliteTemplate: Promise<string> | null = null;

/** A SQLite file as `paygate migrate` leaves a new one, made once per test process. */
function migratedSqliteTemplate(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paygate-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'template.db');
    const database = openDatabase(file);
    try {
      await migrateToLatest(database.db);
      // Everything in the main file: the copies are made of it alone.
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
    } finally {
      await database.close();
    }
    return file;
  })();
  return sqliteTemplate;
}

/**
 * DATABASE_URL for a test app or CLI run: the SQLite file `file` (a copy of a migrated template
 * unless `empty` or the file exists already), or a fresh PostgreSQL database. Commands other than
 * init and migrate refuse a database that does not exist, as they do for an operator.
 * `drop` removes the PostgreSQL database (nothing for SQLite: the file goes with its directory);
 * it never rejects.
 */
export async function testDatabaseUrl(
  file: string,
  opts: NewDatabaseOptions = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!ON_POSTGRES) {
    if (!opts.empty && !existsSync(file)) copyFileSync(await migratedSqliteTemplate(), file);
    return { url: file, drop: async () => {} };
  }
  const db = await createPostgresDatabase({ migrated: !opts.empty });
  return { url: db.url, drop: () => db.drop() };
}

/**
 * A database of the test engine opened as serve opens it: the SQLite file `file` or a fresh
 * PostgreSQL database (migrated unless `empty`), dropped when it is closed. Migrating it again
 * applies nothing. `url`: its DATABASE_URL, for the CLI.
 */
export async function openTestDatabase(
  file: string,
  opts: NewDatabaseOptions = {},
): Promise<Database & { url: string }> {
  const { url, drop } = await testDatabaseUrl(file, opts);
  const database = Object.assign(openDatabase(url), { url });
  const close = database.close.bind(database);
  database.close = async () => {
    try {
      await close();
    } finally {
      // Not waited for (a PostgreSQL drop never rejects: postgres-server.ts).
      void drop();
    }
  };
  return database;
}

/**
 * Runs `fn` on the database at `databaseUrl` (a SQLite file or a postgres:// URL) opened as a
 * separate process would open it, then closes it: what a test reads back after the CLI or a
 * `serve` child wrote.
 */
export async function withDatabase<T>(databaseUrl: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const database = openDatabase(databaseUrl);
  try {
    return await fn(database.db);
  } finally {
    await database.close();
  }
}

/**
 * Runs `statement` (SQL with its values written in) and commits it through a connection of its
 * own, synchronously: what another process committing at that very moment looks like, from inside
 * a synchronous callback (a clock read). `databaseUrl`: the app's DATABASE_URL.
 */
export function commitElsewhereSync(databaseUrl: string, statement: string): void {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const r = spawnSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-c', statement, databaseUrl], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`psql failed: ${r.stderr}`);
    return;
  }
  const raw = new Sqlite(databaseUrl);
  try {
    raw.exec(statement);
  } finally {
    raw.close();
  }
}

/**
 * `describe` for a test of SQLite's own mechanics: on PostgreSQL the block is skipped, its name
 * saying why (the list of skipped tests is the list of what PostgreSQL does not share).
 */
export function describeSqliteOnly(reason: string): (name: string, fn: () => void) => void {
  return (name, fn) => (ON_POSTGRES ? describe.skip(`${name} [SQLite only: ${reason}]`, fn) : describe(name, fn));
}

/**
 * PostgreSQL: a digest of every row of every table of the database, to tell whether anything was
 * written between two reads (SQLite's tests ask the connection's total_changes() instead).
 */
export async function postgresDigest(database: Database): Promise<string> {
  const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(database.db);
  const parts = tables.rows.map(
    (t) =>
      sql`select ${t.name} || ':' || coalesce(md5(string_agg(r::text, ',' order by r::text)), '') as x from ${sql.table(t.name)} r`,
  );
  const r = await sql<{ digest: string }>`select md5(string_agg(x, '|' order by x)) as digest from (${sql.join(
    parts,
    sql` union all `,
  )}) s`.execute(database.db);
  return r.rows[0]?.digest ?? '';
}
