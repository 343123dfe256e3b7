/**
 * Opens the database: a SQLite file, or a PostgreSQL database when DATABASE_URL is a postgres://
 * URL (postgres.ts; docs/database.md). Everything below is the SQLite side unless it says so.
 *
 * The SQLite file is opened with the settings every process (serve and CLI commands alike) must share:
 * WAL so readers never block the writer, synchronous=FULL because a committed payout must survive a
 * power cut, a short busy_timeout plus asynchronous retries (driver.ts) so a CLI write waits for
 * `serve` (and the reverse) without freezing the event loop, foreign keys on.
 */
import Sqlite from 'better-sqlite3';
import { Kysely, type Transaction } from 'kysely';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import type { DatabaseTarget } from '../config.js';
import { PaygateSqliteDialect, StatementRunner, type BusyPolicy } from './driver.js';
import { engineOf } from './engine.js';
import { isSerializationFailure } from './errors.js';
import { RefuseUnfencedWrites } from './fence.js';
import { openPostgres, type PostgresDatabase } from './postgres.js';
import type { DB } from './schema.js';

export { isDatabaseUnavailable, isOrderSpaceConflict, isUniqueViolation } from './errors.js';
export { UnfencedWriteError } from './fence.js';
export { engineOf, type Engine } from './engine.js';

export type Db = Kysely<DB>;
/**
 * What a store function that writes takes: the handle cannot pass for one (kysely's Transaction has
 * `isTransaction: true`), so its write commits with the rest of the caller's transaction.
 */
export type Tx = Transaction<DB>;
/** What a read takes: the database or an open transaction. */
export type Executor = Db | Tx;

/** The same interface on both engines; `engine` tells them apart where it must (only in src/db and tests). */
export type Database = SqliteDatabase | PostgresDatabase;

export interface SqliteDatabase {
  engine: 'sqlite';
  db: Db;
  /**
   * Reads for the scheduled scans that walk far more pages than they return (the sweeper's full
   * pass, the watch list's load): a connection of their own with a 1 MB page cache, so they do
   * not evict the pages the API's point reads keep in the read connection's cache. Read-only.
   */
  scans: Db;
  sqlite: Sqlite.Database;
  /**
   * The durability settings as the live connections report them (PRAGMA read-backs, not what the
   * code asked for): `serve` logs them at start, a test checks them.
   */
  settings(): { writer: ConnectionSettings; reader: ConnectionSettings };
  close(): Promise<void>;
}

export interface ConnectionSettings {
  journal_mode: string;
  /** 2 = FULL: every COMMIT is fsynced before it returns. */
  synchronous: number;
  foreign_keys: number;
  busy_timeout: number;
}

function settingsOf(conn: Sqlite.Database): ConnectionSettings {
  const read = (name: string) => conn.pragma(name, { simple: true }) as string | number;
  return {
    journal_mode: String(read('journal_mode')),
    synchronous: Number(read('synchronous')),
    foreign_keys: Number(read('foreign_keys')),
    busy_timeout: Number(read('busy_timeout')),
  };
}

/** Longest synchronous wait inside SQLite for a lock; the rest of the wait is asynchronous. */
export const BUSY_TIMEOUT_MS = 20;
/** The writer's page cache in KB (migrations run with twice as much: db/migrate.ts). */
export const WRITER_CACHE_KB = 8_000;
/**
 * Bytes the WAL file is cut back to once it starts over: a large transaction (a migration) leaves
 * no file of its size behind.
 */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;
export const DEFAULT_BUSY: BusyPolicy = { deadlineMs: 10_000, pauseMs: 5, maxPauseMs: 200 };

export interface OpenOptions {
  /** SQLite: how long a statement waits for a lock held by another process. */
  busy?: BusyPolicy;
  /** PostgreSQL: the pool's size (DATABASE_POOL_SIZE). */
  poolSize?: number;
}

/**
 * The second connection, for reads outside transactions (driver.ts): opened after the writer set
 * WAL, refuses writes (query_only). `cacheKb`: its page cache.
 */
function openReader(file: string, cacheKb: number): Sqlite.Database {
  const reader = new Sqlite(file, { timeout: BUSY_TIMEOUT_MS });
  reader.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Set, not left to the build's defaults, so both connections report the writer's settings.
  reader.pragma('synchronous = FULL');
  reader.pragma('foreign_keys = ON');
  reader.pragma('query_only = ON');
  // better-sqlite3 builds SQLite with a 16 MB page cache per connection. The reader's point reads
  // are random over a large database: the interior pages of its indexes fit in far less, the
  // leaves would not fit in 16 MB either (the OS cache serves them), so 8 MB keeps the same hits
  // and 8 MB of the server's memory (the RSS floor on a million invoices, docs/performance.md).
  reader.pragma(`cache_size = -${cacheKb}`);
  return reader;
}

/** Owner read/write only: the database holds merchants, key hashes, the ledger and the xpub. */
export const DATABASE_FILE_MODE = 0o600;

/**
 * Creates the database file 0600 before SQLite opens it (SQLite gives the -wal and -shm files the
 * mode of the database file) and narrows the mode of files created before this rule existed.
 */
function restrictFileModes(file: string): void {
  closeSync(openSync(file, 'a', DATABASE_FILE_MODE));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(f)) chmodSync(f, DATABASE_FILE_MODE);
  }
}

/** The writer connection of each database opened here. */
const writers = new WeakMap<Db, Sqlite.Database>();

/**
 * The connection that runs `db`'s transactions: a migration that edits the schema needs it
 * (migrate.ts hands it to schema-edit.ts inside the migration transaction, which holds it).
 */
export function writerConnection(db: Db): Sqlite.Database | undefined {
  return writers.get(db);
}

/**
 * Opens `target`: the configuration's database, or a string (a SQLite file path, or a postgres://
 * URL) for tools and tests.
 */
export function openDatabase(target: string | DatabaseTarget, opts: OpenOptions = {}): Database {
  const t = typeof target === 'string' ? targetOf(target, opts) : target;
  if (t.engine === 'postgres') return openPostgres(t.url, { poolSize: opts.poolSize ?? t.poolSize });
  return openSqlite(t.path, opts);
}

function targetOf(s: string, opts: OpenOptions): DatabaseTarget {
  return /^postgres(ql)?:\/\//i.test(s)
    ? { engine: 'postgres', url: s, poolSize: opts.poolSize ?? 10 }
    : { engine: 'sqlite', path: s };
}

/** A SQLite file, whatever DATABASE_URL says (backups, and the tests of SQLite's own behaviour). */
export function openSqlite(file: string, opts: OpenOptions = {}): SqliteDatabase {
  const busy = opts.busy ?? DEFAULT_BUSY;
  mkdirSync(path.dirname(file), { recursive: true });
  restrictFileModes(file);
  const sqlite = new Sqlite(file, { timeout: BUSY_TIMEOUT_MS });
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma('foreign_keys = ON');
  // The group commit's savepoints (group-commit.ts) journal the pages each creation changes:
  // in temporary files that meant ~40 write calls a creation, in memory none. Only a rollback to
  // a savepoint reads them; recovery after a crash needs the WAL alone.
  sqlite.pragma('temp_store = MEMORY');
  // 8 MB, as the reader's, not better-sqlite3's 16 MB: creations on a million invoices ran as fast
  // (3,730-4,171/s against 3,556-4,196/s with 16 MB) for ~7 MB less RSS.
  sqlite.pragma(`cache_size = -${WRITER_CACHE_KB}`);
  // SQLite's automatic checkpoints (every 1,000 WAL pages, by the commit that crosses them) copy the
  // WAL into the database file; once the WAL starts over, it is cut back to this size.
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  const readerDb = openReader(file, 8_000);
  // Its statements run one at a time behind the dialect's mutex, on a connection that refuses writes.
  const scanConnection = openReader(file, 1_000);
  const scans = new Kysely<DB>({ dialect: new PaygateSqliteDialect(scanConnection, busy, null) });
  const reader = new StatementRunner(readerDb, busy);
  const dialect = new PaygateSqliteDialect(sqlite, busy, reader);
  const db = new Kysely<DB>({ dialect });
  writers.set(db, sqlite);
  let closed = false;
  return {
    engine: 'sqlite',
    db,
    scans,
    sqlite,
    settings: () => ({ writer: settingsOf(sqlite), reader: settingsOf(readerDb) }),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await scans.destroy();
        // kysely closes a dialect's connection only if it ever ran a query: this one may not have.
        if (scanConnection.open) scanConnection.close();
      } finally {
        await db.destroy();
      }
    },
  };
}

/**
 * Runs `fn` in a write transaction. Never make a network call inside `fn`: on SQLite the single
 * writer connection is held for its whole duration. Side effects belong after commit.
 *
 * SQLite: BEGIN IMMEDIATE, one writer at a time across every process, so what `fn` reads stays
 * true until it commits. PostgreSQL: a SERIALIZABLE transaction gives `fn` the same guarantee
 * among concurrent transactions of any process; one that loses a race fails with a serialization
 * failure (or a deadlock) and runs again from the start, so `fn` must do nothing but database
 * work (it may run more than once; docs/database.md, "What a write transaction may do"). Past
 * SERIALIZABLE_ATTEMPTS the failure stands (503).
 *
 * `rowLocks`: for a transaction whose correctness rests on unique constraints and on atomic
 * updates of counter rows (`set n = n + 1 … returning`), not on what it read staying true: an
 * invoice creation. PostgreSQL runs it at READ COMMITTED, where transactions updating the same
 * counter row (the deposit index, a merchant's event sequence) queue on the row's lock instead of
 * failing serialization and running again; a lost unique race still fails with the violation.
 * SQLite has one writer and ignores it.
 */
export interface WriteTxOptions {
  rowLocks?: boolean;
}

export function writeTx<T>(db: Db, fn: (trx: Tx) => Promise<T>, opts: WriteTxOptions = {}): Promise<T> {
  const fence = fences.get(db);
  if (fence)
    return writeTx(
      fence.base,
      async (trx) => {
        await fence.check(trx);
        return fn(trx);
      },
      opts,
    );
  if (engineOf(db) === 'sqlite') return db.transaction().execute(fn);
  return retried(db, fn, opts.rowLocks ? 'read committed' : 'serializable');
}

/** What a fenced handle runs first in each of its write transactions, and the handle it wraps. */
const fences = new WeakMap<Db, { base: Db; check: (trx: Tx) => Promise<void> }>();

/**
 * `db` for code that must write only under a condition checked in the same transaction (the
 * background work under the worker lease, docs/adr/0049-the-lease-across-hosts.md): every
 * `writeTx` on the returned handle runs `check(trx)` first, inside the transaction, and aborts it
 * when `check` throws; a write issued on the handle outside `writeTx` throws UnfencedWriteError
 * (fence.ts). Reads go through as on `db`.
 */
export function fencedDb(db: Db, check: (trx: Tx) => Promise<void>): Db {
  const base = fences.get(db)?.base ?? db;
  const fenced = base.withPlugin(new RefuseUnfencedWrites());
  fences.set(fenced, { base, check });
  return fenced;
}

/** Tries of one PostgreSQL write transaction that keeps losing races, with a growing random pause. */
export const SERIALIZABLE_ATTEMPTS = 30;

async function retried<T>(
  db: Db,
  fn: (trx: Tx) => Promise<T>,
  isolation: 'serializable' | 'read committed',
): Promise<T> {
  let pause = 2;
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().setIsolationLevel(isolation).execute(fn);
    } catch (e) {
      if (!isSerializationFailure(e) || attempt >= SERIALIZABLE_ATTEMPTS) throw e;
      // Random, so the transactions that collided do not collide again in step.
      await new Promise((r) => setTimeout(r, Math.random() * pause));
      pause = Math.min(pause * 2, 200);
    }
  }
}
