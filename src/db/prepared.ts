/**
 * Precompiled queries for the hot paths (a point read per request, the statements of an invoice
 * creation). Building a query with kysely costs about as much as running it in SQLite (tens of
 * µs: builder objects, freezing, the compiler's visitor), so a hot query is built once, at module
 * load, from the same typed kysely builder, and each call only binds its parameters.
 *
 * Outside a transaction a prepared read runs synchronously on the read connection (driver.ts)
 * and returns rows built from arrays by a function made for the statement's columns (faster than
 * better-sqlite3's own row objects). Inside a transaction it goes through the transaction, as any
 * query does, minus the building.
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

const readers = new WeakMap<object, StatementRunner>();

/** Called by openDatabase: `db` (not its transactions) may read on `reader` directly. */
export function bindReader(db: object, reader: StatementRunner): void {
  readers.set(db, reader);
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
    this.sql = compiled.sql;
    this.order = compiled.parameters.map((v) => {
      if (typeof v !== 'string' || !v.startsWith(MARK)) return { value: v };
      const name = v.slice(MARK.length) as P;
      if (!names.includes(name)) throw new Error(`prepared query: placeholder ${name} is not declared`);
      return { name };
    });
  }

  private params(values: Record<P, unknown>): unknown[] {
    return this.order.map((o) => ('name' in o ? values[o.name] : o.value));
  }

  private on(reader: StatementRunner): Compiled<R> {
    let c = this.byConnection.get(reader);
    if (!c) {
      const statement = reader.db.prepare<unknown[], unknown[]>(this.sql).raw(true);
      c = { statement, toRow: rowBuilder<R>(statement.columns().map((col) => col.name)) };
      this.byConnection.set(reader, c);
    }
    return c;
  }

  /** The first row, or undefined. */
  async first(db: Runs, values: Record<P, unknown>): Promise<R | undefined> {
    const params = this.params(values);
    const reader = readers.get(db);
    if (reader) {
      const c = this.on(reader);
      const row = await reader.retrying(() => c.statement.get(params));
      return row === undefined ? undefined : c.toRow(row);
    }
    return (await db.executeQuery<R>(CompiledQuery.raw(this.sql, params))).rows[0];
  }

  /** Every row. */
  async all(db: Runs, values: Record<P, unknown>): Promise<R[]> {
    const params = this.params(values);
    const reader = readers.get(db);
    if (reader) {
      const c = this.on(reader);
      return (await reader.retrying(() => c.statement.all(params))).map(c.toRow);
    }
    return (await db.executeQuery<R>(CompiledQuery.raw(this.sql, params))).rows;
  }

  /** A statement that writes: through `db` (the writer, in its transaction when one is open). */
  async run(db: Runs, values: Record<P, unknown>): Promise<{ changes: bigint; rows: R[] }> {
    const r = await db.executeQuery<R>(CompiledQuery.raw(this.sql, this.params(values)));
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
