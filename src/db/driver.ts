/**
 * Kysely driver for better-sqlite3 that (1) starts every transaction with BEGIN IMMEDIATE, so a
 * writer takes the write lock up front instead of failing with SQLITE_BUSY half-way through;
 * (2) waits for a lock held by another process *asynchronously*: better-sqlite3 is synchronous, so
 * a long busy_timeout would freeze the event loop (every request) while a CLI command or a backup
 * holds the lock; instead busy_timeout is short and the driver retries with backoff up to a
 * deadline, then gives up with SQLITE_BUSY (503 on the API); (3) caches prepared statements,
 * because preparing the same SQL on every query is measurable on the request path. SQLite has one
 * connection; a mutex hands it out.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

const STATEMENT_CACHE_SIZE = 500;

export interface BusyPolicy {
  /** Total time to keep retrying a statement that finds the database locked. */
  deadlineMs: number;
  /** First pause between retries; doubles up to maxPauseMs. */
  pauseMs: number;
  maxPauseMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

class SqliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  constructor(private readonly db: BetterSqlite3.Database, private readonly busy: BusyPolicy) {}

  private prepare(sql: string): BetterSqlite3.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.statements.keys().next().value as string;
        this.statements.delete(oldest);
      }
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private runOnce<R>(compiled: CompiledQuery): QueryResult<R> {
    const stmt = this.prepare(compiled.sql);
    const params = compiled.parameters as unknown[];
    if (stmt.reader) return { rows: stmt.all(params) as R[] };
    const { changes, lastInsertRowid } = stmt.run(params);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = performance.now() + this.busy.deadlineMs;
    let pause = this.busy.pauseMs;
    for (;;) {
      try {
        return this.runOnce<R>(compiled);
      } catch (e) {
        // Inside a transaction the lock is ours already (BEGIN IMMEDIATE); a busy error there is
        // not a wait but a failure. Outside (BEGIN itself, single statements) wait and retry.
        if (!isBusy(e) || this.db.inTransaction || performance.now() + pause > deadline) throw e;
        await sleep(pause);
        pause = Math.min(pause * 2, this.busy.maxPauseMs);
      }
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by the paygate SQLite driver');
  }
}

class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private release: (() => void) | null = null;
  async lock(): Promise<void> {
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    await prev;
    this.release = release;
  }
  unlock(): void {
    const r = this.release;
    this.release = null;
    r?.();
  }
}

class ImmediateSqliteDriver implements Driver {
  private readonly mutex = new Mutex();
  private readonly connection: SqliteConnection;
  constructor(private readonly db: BetterSqlite3.Database, busy: BusyPolicy) {
    this.connection = new SqliteConnection(db, busy);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    return this.connection;
  }
  async beginTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    // A failed COMMIT or an SQLITE_BUSY may already have ended the transaction.
    if (this.db.inTransaction) await conn.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(): Promise<void> {
    this.mutex.unlock();
  }
  async destroy(): Promise<void> {
    this.db.close();
  }
}

export class PaygateSqliteDialect implements Dialect {
  constructor(private readonly db: BetterSqlite3.Database, private readonly busy: BusyPolicy) {}
  createDriver(): Driver {
    return new ImmediateSqliteDriver(this.db, this.busy);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}
