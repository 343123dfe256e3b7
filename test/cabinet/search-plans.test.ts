/**
 * The cabinet's search finds by the start of an order id, reference, address or transaction hash
 * through indexes on both engines: the plan of the very statement the list runs (captured, then
 * explained on a migrated database) uses each search index. PostgreSQL is asked with sequential
 * scans priced out, so the plan shows whether an index can serve `LIKE 'x%'` at all (its
 * operator class), not which one tiny tables make cheaper.
 */
import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Driver,
} from 'kysely';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pageInvoices, pagePayouts } from '../../src/cabinet/store.js';
import type { Database, Db } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { tempDir } from '../helpers/app.js';
import { ON_POSTGRES, openTestDatabase } from '../helpers/database.js';

const M = '6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21';

/** The statements a store function sends, compiled for the test engine, not run. */
async function statementsOf(run: (db: Db) => Promise<unknown>): Promise<CompiledQuery[]> {
  const captured: CompiledQuery[] = [];
  const connection: DatabaseConnection = {
    async executeQuery(q) {
      captured.push(q);
      return { rows: [] };
    },
    // eslint-disable-next-line require-yield
    async *streamQuery() {
      throw new Error('not used');
    },
  };
  const driver: Driver = Object.assign(new DummyDriver(), { acquireConnection: async () => connection });
  const db = new Kysely<DB>({
    dialect: ON_POSTGRES
      ? {
          createAdapter: () => new PostgresAdapter(),
          createDriver: () => driver,
          createIntrospector: (k) => new PostgresIntrospector(k),
          createQueryCompiler: () => new PostgresQueryCompiler(),
        }
      : {
          createAdapter: () => new SqliteAdapter(),
          createDriver: () => driver,
          createIntrospector: (k) => new SqliteIntrospector(k),
          createQueryCompiler: () => new SqliteQueryCompiler(),
        },
  });
  await run(db as unknown as Db);
  return captured;
}

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase(path.join(tempDir(), 'search.db'));
});
afterAll(() => database?.close());

async function planOf(c: CompiledQuery): Promise<string> {
  return database.db.transaction().execute(async (trx) => {
    if (ON_POSTGRES) await sql`set local enable_seqscan = off`.execute(trx);
    const explain = ON_POSTGRES ? 'explain' : 'explain query plan';
    const r = await trx.executeQuery<Record<string, string>>(
      CompiledQuery.raw(`${explain} ${c.sql}`, [...c.parameters]),
    );
    return r.rows.map((row) => row['QUERY PLAN'] ?? row.detail).join('\n');
  });
}

it.each([
  [
    'invoices',
    (db: Db) => pageInvoices(db, M, { q: 'ord-a' }, null, 50),
    ['invoices_search_order', 'invoices_search_address', 'deposits_search_tx'],
  ],
  [
    'payouts',
    (db: Db) => pagePayouts(db, M, { q: 'ref-1' }, null, 50),
    ['payouts_search_reference', 'payouts_search_address', 'payouts_search_tx'],
  ],
] as const)("the search of a merchant's %s walks its prefix indexes", async (_name, run, indexes) => {
  const [statement] = await statementsOf(run);
  const plan = await planOf(statement!);
  if (ON_POSTGRES) {
    // Empty tables price every (merchant_id, …) index alike: the plan shows the search indexes
    // reached and the prefixes as LIKE, which text_pattern_ops lets an index serve.
    expect(plan, plan).toMatch(new RegExp(indexes.join('|')));
    expect(plan, plan).toMatch(/~~ '(ord-a|ref-1)%'/);
    return;
  }
  for (const index of indexes) expect(plan, plan).toContain(index);
  expect(plan, plan).not.toMatch(/^SCAN (invoices|payouts|deposits)$/m);
});
