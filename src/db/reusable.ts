/**
 * A query that kysely builds and compiles once, then runs again with new values. Building and
 * compiling a query costs about 10 µs of CPU, as much as SQLite takes to run a point read, and a
 * request's hot path runs several (the key lookup and the invoice read of every GET, a dozen
 * statements of every creation; docs/performance.md). The SQL text is kysely's, untouched; only
 * the values of its parameters change, by position.
 *
 * `build` receives stand-ins for the values and may use them only as values of the query (kysely
 * turns each into a parameter). It may choose the query's shape by testing a value for null (a
 * null value is passed as null and compiles a query of its own) or by which keys are present
 * (an absent or undefined value is left out), never by anything else: a value that kysely did not
 * turn into a parameter makes the first run throw.
 */
import type { Compilable, CompiledQuery } from 'kysely';
import type { Executor } from './database.js';
import { engineOf } from './engine.js';

type Value = string | number | null | undefined;

/** Marks a stand-in: no value the application stores starts with a NUL character. */
const MARK = '\u0000reusable:';

interface Compiled<R> {
  query: CompiledQuery<R>;
  /** Per parameter: the name of the value it takes, or a constant of the query itself. */
  slots: ({ name: string } | { constant: unknown })[];
}

export type ReusableQuery<P, R> = (db: Executor, params: P) => Promise<R[]>;

export function reusableQuery<P extends object, R>(
  build: (db: Executor, params: P) => Compilable<R>,
): ReusableQuery<P, R> {
  const compiled = new Map<string, Compiled<R>>();
  return async (db, params) => {
    // A handle with plugins (the fenced handle refuses a write while it compiles) compiles every
    // query afresh, so its plugins see each one.
    if (db.getExecutor().plugins.length > 0) return (await db.executeQuery<R>(build(db, params).compile())).rows;
    const values = params as Record<string, Value>;
    let shape = engineOf(db);
    for (const name in values) {
      const v = values[name];
      if (v !== undefined) shape += v === null ? `,${name}=null` : `,${name}`;
    }
    let c = compiled.get(shape);
    if (!c) {
      c = compile(db, build, params);
      compiled.set(shape, c);
    }
    const parameters = c.slots.map((s) => ('name' in s ? values[s.name] : s.constant));
    return (await db.executeQuery<R>({ ...c.query, parameters })).rows;
  };
}

function compile<P extends object, R>(
  db: Executor,
  build: (db: Executor, params: P) => Compilable<R>,
  params: P,
): Compiled<R> {
  const standIns: Record<string, Value> = {};
  for (const [name, v] of Object.entries(params) as [string, Value][]) {
    if (v !== undefined) standIns[name] = v === null ? null : `${MARK}${name}`;
  }
  const query = build(db, standIns as unknown as P).compile();
  const slots = query.parameters.map((p) =>
    typeof p === 'string' && p.startsWith(MARK) ? { name: p.slice(MARK.length) } : { constant: p },
  );
  for (const name in standIns) {
    if (standIns[name] !== null && !slots.some((s) => 'name' in s && s.name === name))
      throw new Error(`reusable query: the value "${name}" is not a parameter of the query it built`);
  }
  return { query, slots };
}
