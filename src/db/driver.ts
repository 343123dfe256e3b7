/**
 * Kysely driver for better-sqlite3 that (1) starts every transaction with BEGIN IMMEDIATE, so a
 * writer takes the write lock up front instead of failing with SQLITE_BUSY half-way through;
 * (2) waits for a lock held by another process *asynchronously*: better-sqlite3 is synchronous, so
 * a long busy_timeout would freeze the event loop (every request) while a CLI command or a backup
 * holds the lock; instead busy_timeout is short and the driver retries with backoff up to a
 * deadline, then gives up with SQLITE_BUSY (503 on the API); (3) caches prepared statements,
 * because preparing the same SQL on every query is measurable on the request path.
 *
 * Two connections: the *writer* runs transactions and every statement that may write, one user
 * at a time (a mutex hands it out, because a transaction spans awaits); the *reader* runs the
 * read-only statements issued outside a transaction, at once, without the mutex. WAL gives the
 * reader the last committed state while a write transaction (its fsync included) is in flight,
 * so a read never waits for a write. Reads inside a transaction stay on the writer: they must see
 * the transaction's own writes.
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

/** One better-sqlite3 connection: its prepared statements and the asynchronous busy wait. */
export class StatementRunner {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  constructor(
    readonly db: BetterSqlite3.Database,
    private readonly busy: BusyPolicy,
  ) {}

  prepare(sql: string): BetterSqlite3.Statement {
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

  execute<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return this.retrying(() => this.runOnce<R>(compiled));
  }

  /**
   * Runs `fn`; while it finds the database locked by another process, waits asynchronously and
   * tries again until the deadline. Inside a transaction the lock is ours already (BEGIN
   * IMMEDIATE): a busy error there is not a wait but a failure.
   */
  async retrying<T>(fn: () => T): Promise<T> {
    let deadline = 0;
    let pause = this.busy.pauseMs;
    for (;;) {
      try {
        return fn();
      } catch (e) {
        if (!isBusy(e) || this.db.inTransaction) throw e;
        deadline ||= performance.now() + this.busy.deadlineMs;
        if (performance.now() + pause > deadline) throw e;
        await sleep(pause);
        pause = Math.min(pause * 2, this.busy.maxPauseMs);
      }
    }
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

/**
 * What kysely calls a connection: one user's use of the database. It holds the writer (and the
 * mutex) only for a transaction or a statement that may write.
 */
class Session implements DatabaseConnection {
  holding = false;
  constructor(private readonly driver: ImmediateSqliteDriver) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { writer, reader } = this.driver;
    if (this.holding) return writer.execute<R>(compiled);
    if (reader && isPlainRead(reader, compiled.sql)) return reader.execute<R>(compiled);
    await this.lock();
    try {
      return await writer.execute<R>(compiled);
    } finally {
      this.unlock();
    }
  }

  /**
   * Takes the writer for this session; a session that holds it already keeps it. A connection-
   * bound kysely (the migrator's) is released only at its end, not after each transaction it runs:
   * its second transaction would otherwise wait for the mutex its first one still holds.
   */
  async lock(): Promise<void> {
    if (this.holding) return;
    await this.driver.mutex.lock();
    this.holding = true;
  }

  unlock(): void {
    if (!this.holding) return;
    this.holding = false;
    this.driver.mutex.unlock();
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by the paygate SQLite driver');
  }
}

/**
 * A statement that returns rows and cannot write (sqlite3_stmt_readonly; BEGIN and SAVEPOINT are
 * "read-only" too but return no rows). One that the reader cannot even prepare (a table created
 * a moment ago by the writer, say) goes to the writer, which reports any real error.
 */
function isPlainRead(reader: StatementRunner, sql: string): boolean {
  try {
    const stmt = reader.prepare(sql);
    return stmt.reader && stmt.readonly;
  } catch {
    return false;
  }
}

class ImmediateSqliteDriver implements Driver {
  readonly mutex = new Mutex();
  constructor(
    readonly writer: StatementRunner,
    readonly reader: StatementRunner | null,
  ) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new Session(this);
  }
  async beginTransaction(conn: DatabaseConnection): Promise<void> {
    const session = conn as Session;
    const held = session.holding;
    await session.lock();
    try {
      await this.writer.execute(CompiledQuery.raw('begin immediate'));
    } catch (e) {
      if (!held) session.unlock();
      throw e;
    }
  }
  async commitTransaction(): Promise<void> {
    await this.writer.execute(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(): Promise<void> {
    // A failed COMMIT or an SQLITE_BUSY may already have ended the transaction.
    if (this.writer.db.inTransaction) await this.writer.execute(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    (conn as Session).unlock();
  }
  async destroy(): Promise<void> {
    this.reader?.db.close();
    this.writer.db.close();
  }
}

export class PaygateSqliteDialect implements Dialect {
  private readonly writer: StatementRunner;
  /** `reader`: a second connection to the same file for reads outside transactions (null: none). */
  constructor(
    db: BetterSqlite3.Database,
    busy: BusyPolicy,
    private readonly reader: StatementRunner | null = null,
  ) {
    this.writer = new StatementRunner(db, busy);
  }
  createDriver(): Driver {
    return new ImmediateSqliteDriver(this.writer, this.reader);
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
