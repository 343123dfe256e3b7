/**
 * Precompiled queries for the hot paths (a point read per request, the statements of an invoice
 * creation). Building a query with kysely costs about as much as running it in SQLite (tens of
 * µs: builder objects, freezing, the compiler's visitor), so a hot query is built once, at module
 * load, from the same typed kysely builder, and each call only binds its parameters.
 *
 * Outside a transaction a prepared read runs synchronously on the read connection (driver.ts)
 * and returns rows built from arrays by a function made for the statement's columns (faster than
 * better-sqlite3's own row objects). Inside a transaction opened by writeTx, every prepared
 * statement runs the same way on the writer: kysely's path for an already compiled query (its
 * executor, plugins, connection provider and promise chain) cost 15–25 µs a statement, and an
 * invoice creation runs about ten. Elsewhere (a write outside a transaction, a transaction not
 * opened by writeTx) it goes through kysely, as any query does, minus the building.
 */
import type Sqlite from 'better-sqlite3';
import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Compilable,
} from 'kysely';
import type { StatementRunner } from './driver.js';
import type { DB } from './schema.js';

/** Anything a store function takes: the database or a transaction (Executor in database.ts). */
type Runs = Pick<Kysely<DB>, 'executeQuery'>;

/** The database (not its transactions) → its read connection; an open transaction → the writer. */
const readers = new WeakMap<object, StatementRunner>();
const writers = new WeakMap<object, StatementRunner>();
/** A transaction → its writer, while writeTx's callback runs (it holds the writer's mutex then). */
const transactions = new WeakMap<object, StatementRunner>();

/** Called by openDatabase: `db` (not its transactions) may read on `reader` directly. */
export function bindConnections(db: object, c: { reader: StatementRunner; writer: StatementRunner }): void {
  readers.set(db, c.reader);
  writers.set(db, c.writer);
}

/**
 * Runs `fn` with `trx` bound to the writer of `db`. Unbound when fn settles, before COMMIT: a
 * statement issued after that (a stray promise) takes kysely's path and meets the ended transaction.
 */
export async function bindTransaction<T>(db: object, trx: object, fn: () => Promise<T>): Promise<T> {
  const writer = writers.get(db);
  if (writer) transactions.set(trx, writer);
  try {
    return await fn();
  } finally {
    transactions.delete(trx);
  }
}

/** The writer connection of an open writeTx transaction (migrate.ts hands it to schema-edit.ts). */
export function writerOfTransaction(trx: object): Sqlite.Database | undefined {
  return transactions.get(trx)?.db;
}

/** Compiles queries only: no connection behind it. */
const compiler = new Kysely<DB>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

const MARK = '\u0000param:';

interface Compiled<R> {
  statement: Sqlite.Statement<unknown[], unknown[]>;
  toRow: (values: unknown[]) => R;
}

/**
 * A constant LIMIT or OFFSET (`limit(1)`) written into the SQL as an integer literal; every other
 * value stays a parameter. Bound, it cost 8 µs a call: better-sqlite3 rebinds every parameter on
 * each call, and binding a LIMIT parameter makes SQLite re-prepare the statement (measured: a
 * 1.6 µs lookup took 10 µs with `limit ?`; decisions.md, "Release 3, third round").
 */
export function inlineLimits<O extends object>(sql: string, order: O[]): { sql: string; order: O[] } {
  // A comment could hold a quote the scan below would take for the start of a string.
  if (sql.includes('--') || sql.includes('/*')) return { sql, order };
  const literal = (o: O): string | null => {
    const v = 'value' in o ? o.value : undefined;
    if (typeof v === 'bigint') return v.toString();
    return typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : null;
  };
  let out = '';
  let param = 0;
  let quote: string | null = null;
  const kept: O[] = [];
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      quote = ch;
    } else if (ch === '?') {
      const o = order[param++];
      if (o === undefined) throw new Error('prepared query: more placeholders than parameters');
      const lit = /\b(limit|offset)\s*$/i.test(out) ? literal(o) : null;
      if (lit !== null) {
        out += lit;
        continue;
      }
      kept.push(o);
    }
    out += ch;
  }
  if (param !== order.length) throw new Error('prepared query: fewer placeholders than parameters');
  return { sql: out, order: kept };
}

/** A row object from an array of column values, as a literal of fixed shape. */
function rowBuilder<R>(columns: string[]): (values: unknown[]) => R {
  const body = columns.map((c, i) => `${JSON.stringify(c)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${body} };`) as (values: unknown[]) => R;
}

export class PreparedQuery<P extends string, R> {
  readonly sql: string;
  /** Per SQL parameter: the name of a placeholder, or a constant written in the builder (limit(1)). */
  private readonly order: ({ name: P } | { value: unknown })[];
  private readonly byConnection = new WeakMap<StatementRunner, Compiled<R>>();

  constructor(query: Compilable<R>, names: readonly P[]) {
    const compiled = query.compile();
    const order = compiled.parameters.map((v) => {
      if (typeof v !== 'string' || !v.startsWith(MARK)) return { value: v };
      const name = v.slice(MARK.length) as P;
      if (!names.includes(name)) throw new Error(`prepared query: placeholder ${name} is not declared`);
      return { name };
    });
    const inlined = inlineLimits(compiled.sql, order);
    this.sql = inlined.sql;
    this.order = inlined.order;
  }

  /** The values to bind, in the order of the SQL's placeholders (a statement run elsewhere: a worker thread). */
  params(values: Record<P, unknown>): unknown[] {
    return this.order.map((o) => ('name' in o ? values[o.name] : o.value));
  }

  private on(runner: StatementRunner): Compiled<R> {
    let c = this.byConnection.get(runner);
    if (!c) {
      const statement = runner.db.prepare<unknown[], unknown[]>(this.sql);
      // Only a statement that returns rows has columns (and a raw mode).
      c = statement.reader
        ? { statement: statement.raw(true), toRow: rowBuilder<R>(statement.columns().map((col) => col.name)) }
        : { statement, toRow: () => { throw new Error('prepared query: the statement returns no rows'); } };
      this.byConnection.set(runner, c);
    }
    return c;
  }

  /** The runner `db` may use directly: the writer for a writeTx transaction, the reader for the database. */
  private direct(db: Runs, write: boolean): StatementRunner | undefined {
    const writer = transactions.get(db);
    if (writer) {
      // SQLite ends a transaction itself on some errors (SQLITE_FULL, IOERR): a statement after
      // that would run in autocommit, outside the transaction its caller believes it is in.
      if (!writer.db.inTransaction) throw new Error('prepared query: the transaction was rolled back by SQLite');
      return writer;
    }
    return write ? undefined : readers.get(db);
  }

  /** The first row, or undefined. */
  async first(db: Runs, values: Record<P, unknown>): Promise<R | undefined> {
    const params = this.params(values);
    const runner = this.direct(db, false);
    if (runner) {
      const c = this.on(runner);
      const row = await runner.retrying(() => c.statement.get(params));
      return row === undefined ? undefined : c.toRow(row);
    }
    return (await db.executeQuery<R>(CompiledQuery.raw(this.sql, params))).rows[0];
  }

  /** Every row. */
  async all(db: Runs, values: Record<P, unknown>): Promise<R[]> {
    const params = this.params(values);
    const runner = this.direct(db, false);
    if (runner) {
      const c = this.on(runner);
      return (await runner.retrying(() => c.statement.all(params))).map(c.toRow);
    }
    return (await db.executeQuery<R>(CompiledQuery.raw(this.sql, params))).rows;
  }

  /** A statement that writes: in the open transaction, else through `db` (the writer, behind its mutex). */
  async run(db: Runs, values: Record<P, unknown>): Promise<{ changes: bigint; rows: R[] }> {
    const params = this.params(values);
    const runner = this.direct(db, true);
    if (runner) {
      const c = this.on(runner);
      // As the driver answers: a statement with RETURNING reports its rows, not a count.
      if (c.statement.reader) return { changes: 0n, rows: c.statement.all(params).map((v) => c.toRow(v as unknown[])) };
      return { changes: BigInt(c.statement.run(params).changes), rows: [] };
    }
    const r = await db.executeQuery<R>(CompiledQuery.raw(this.sql, params));
    return { changes: r.numAffectedRows ?? 0n, rows: r.rows };
  }
}

/**
 * A query built once. `build` receives the query builder and `p(name)`, a placeholder for the
 * parameter `name`; calls pass `{ name: value }`.
 *
 *   const byId = prepare(['id'], (db, p) => db.selectFrom('invoices').selectAll().where('id', '=', p('id')));
 *   const row = await byId.first(db, { id });
 */
export function prepare<P extends string, R>(names: readonly P[], build: (db: Kysely<DB>, p: (name: P) => never) => Compilable<R>): PreparedQuery<P, R> {
  return new PreparedQuery<P, R>(build(compiler, (name: P) => `${MARK}${name}` as never), names);
}

/**
 * `true` only when the columns listed name every column of the row: an insert that binds every
 * column by name fails the type check when a column is added to the table and not to its list.
 */
export type NamesEveryColumn<Row, Listed> = Exclude<keyof Row, Listed> extends never ? true : never;

/** An insert's values: every listed column bound to the parameter of the same name. */
export function everyColumnBound<C extends string, Row>(columns: readonly C[], p: (name: C) => never): Row {
  return Object.fromEntries(columns.map((c) => [c, p(c)])) as unknown as Row;
}
