/**
 * Opens a PostgreSQL database (DATABASE_URL=postgres://…) behind the same kysely interface as the
 * SQLite file: a `pg` pool, kysely's PostgreSQL dialect, and the type parsers that hand the code
 * the JavaScript types SQLite gives it (docs/database.md, "Two engines").
 *
 * Durability: `synchronous_commit` stays at the server's default (on): a COMMIT returns once its
 * WAL record is flushed, as SQLite's synchronous=FULL. The pool's size bounds this process's
 * connections (DATABASE_POOL_SIZE); a statement that finds every connection in use waits for one.
 */
import { Kysely, PostgresDialect } from 'kysely';
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { DB } from './schema.js';

/**
 * `pg`, loaded when a PostgreSQL database is opened: a command on a SQLite file (most CLI
 * commands) does not pay for loading it at start.
 */
let loaded: typeof pg | undefined;
function pgModule(): typeof pg {
  loaded ??= createRequire(import.meta.url)('pg') as typeof pg;
  return loaded;
}

/** pg's type ids (pg_type.oid) of the types given a parser of their own here. */
const INT8 = 20;

/**
 * `bigint` columns (block numbers, millisecond times, counts, sequences) come back as numbers, as
 * SQLite's integers do; pg's default is a string, since an int8 may exceed 2^53. Past it the read
 * fails loudly instead of rounding. Money is TEXT of base units on both engines and never passes
 * through here; NUMERIC keeps pg's default (a string) for exact sums done in SQL.
 */
export function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`integer ${text} is beyond JavaScript's safe integers`);
  return n;
}

const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 && format !== 'binary'
      ? parseInt8
      : pgModule().types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** How long a statement waits for a free connection of the pool (or a new one) before 503. */
export const CONNECT_TIMEOUT_MS = 10_000;

export interface PostgresSettings {
  server_version: string;
  /** "on": a COMMIT returns once its WAL is flushed. */
  synchronous_commit: string;
  pool_size: number;
}

export interface PostgresDatabase {
  engine: 'postgres';
  db: Kysely<DB>;
  /** The same pool: PostgreSQL's shared buffers are not evicted by one connection's scans. */
  scans: Kysely<DB>;
  /** SQLite's writer connection; none here. */
  sqlite: null;
  pool: pg.Pool;
  /** The durability settings as the server reports them (serve logs them at start). */
  settings(): Promise<PostgresSettings>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  poolSize?: number;
  /** Called with errors of idle connections (the server restarted, the network dropped). */
  onIdleError?: (err: Error) => void;
}

export function openPostgres(url: string, opts: PostgresOptions = {}): PostgresDatabase {
  const poolSize = opts.poolSize ?? 10;
  const pool = new (pgModule().Pool)({
    connectionString: url,
    max: poolSize,
    types: typeParsers,
    application_name: 'paygate',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  // An idle connection that breaks emits here; without a listener the process would exit. The
  // pool drops it and opens another on the next checkout.
  pool.on('error', (err) => opts.onIdleError?.(err));
  // A connection in use can be ended by the server between two statements (a restart, or
  // idle_in_transaction_session_timeout ending the transaction of a process that was stopped).
  // pg then emits 'error' on the client, which the pool listens to only while the client is idle:
  // without a listener of its own the event would end the process. The statement that runs on it
  // next fails instead, and the pool drops the connection on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  return {
    engine: 'postgres',
    db,
    scans: db,
    sqlite: null,
    pool,
    async settings() {
      const r = await pool.query<{ server_version: string; synchronous_commit: string }>(
        `select current_setting('server_version') as server_version, current_setting('synchronous_commit') as synchronous_commit`,
      );
      const row = r.rows[0] as { server_version: string; synchronous_commit: string };
      return { ...row, pool_size: poolSize };
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
      // kysely ends the pool only if a query ever ran through it.
      if (!pool.ended) await pool.end();
    },
  };
}

/** The pool's connections: open, idle in the pool, and checkouts waiting for one. */
export function poolCounts(pool: pg.Pool): { total: number; idle: number; waiting: number } {
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}
