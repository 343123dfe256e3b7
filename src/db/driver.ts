/**
 * Kysely driver for better-sqlite3 that (1) starts every transaction with BEGIN IMMEDIATE, so a
 * writer takes the write lock up front and waits on busy_timeout instead of failing with
 * SQLITE_BUSY half-way through, and (2) caches prepared statements, because preparing the same SQL
 * on every query is measurable on the request path. SQLite has one connection; a mutex hands it out.
 */
import type BetterSqlite3 from 'better-sqlite3';
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

class SqliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  constructor(private readonly db: BetterSqlite3.Database) {}

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

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const stmt = this.prepare(compiled.sql);
    const params = compiled.parameters as unknown[];
    if (stmt.reader) return Promise.resolve({ rows: stmt.all(params) as R[] });
    const { changes, lastInsertRowid } = stmt.run(params);
    return Promise.resolve({ numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] });
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
  constructor(private readonly db: BetterSqlite3.Database) {
    this.connection = new SqliteConnection(db);
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
  constructor(private readonly db: BetterSqlite3.Database) {}
  createDriver(): Driver {
    return new ImmediateSqliteDriver(this.db);
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
