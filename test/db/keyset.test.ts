/**
 * The keyset condition of every page and batch (src/db/keyset.ts), on the engine under test:
 * paging through rows whose times tie, newest first or oldest first, gives every row once and in
 * order; the condition on rows in memory says what the database says; on PostgreSQL the next page
 * is a range of the index, not a filter (SQLite's plans: query-plans.test.ts).
 */
import { sql, type Kysely } from 'kysely';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { afterKey, compareKeys, comesAfter, type KeysetKey, type KeysetOrder } from '../../src/db/keyset.js';
import { tempDir } from '../helpers/app.js';
import { ON_POSTGRES, openTestDatabase } from '../helpers/database.js';

interface Rows {
  rows: { merchant_id: string; created_at: string; id: string };
}

const AT = ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.001Z', '2026-01-02T00:00:00.000Z'];
// Three times, each shared by several rows, for two merchants; inserted out of order.
const ROWS = AT.flatMap((at, i) =>
  ['c', 'a', 'e', 'b', 'd'].slice(0, 3 + i).flatMap((id) => [
    { merchant_id: 'm1', created_at: at, id: `${id}${i}` },
    { merchant_id: 'm2', created_at: at, id: `${id}${i}` },
  ]),
).reverse();

let database: Database;
let db: Kysely<Rows>;

beforeAll(async () => {
  database = await openTestDatabase(path.join(tempDir(), 'keyset.db'));
  db = database.db as unknown as Kysely<Rows>;
  await sql`create table rows (merchant_id text not null, created_at text not null, id text not null)`.execute(db);
  await sql`create index rows_merchant_created on rows (merchant_id, created_at, id)`.execute(db);
  await db.insertInto('rows').values(ROWS).execute();
});
afterAll(() => database?.close());

async function page(order: KeysetOrder, after: KeysetKey | null, limit: number) {
  let q = db.selectFrom('rows').select(['created_at', 'id']).where('merchant_id', '=', 'm1');
  if (after) q = q.where((eb) => afterKey(eb, 'created_at', 'id', after, order));
  return q.orderBy('created_at', order).orderBy('id', order).limit(limit).execute();
}

describe('keyset pages', () => {
  for (const order of ['desc', 'asc'] as const) {
    it(`give every row once, in (time, id) order, ${order === 'desc' ? 'newest' : 'oldest'} first`, async () => {
      const seen: string[] = [];
      let after: KeysetKey | null = null;
      for (;;) {
        const rows = await page(order, after, 2);
        seen.push(...rows.map((r) => `${r.created_at} ${r.id}`));
        if (rows.length < 2) break;
        after = { at: rows[1]!.created_at, id: rows[1]!.id };
      }
      const all = ROWS.filter((r) => r.merchant_id === 'm1')
        .map((r) => ({ at: r.created_at, id: r.id }))
        .sort((a, b) => (order === 'desc' ? compareKeys(b, a) : compareKeys(a, b)))
        .map((k) => `${k.at} ${k.id}`);
      expect(seen).toEqual(all);
    });

    it(`on rows in memory, select what the database selects (${order})`, async () => {
      const keys = ROWS.filter((r) => r.merchant_id === 'm1').map((r) => ({ at: r.created_at, id: r.id }));
      for (const key of keys) {
        const fromDb = (await page(order, key, 100)).map((r) => `${r.created_at} ${r.id}`).sort();
        const inMemory = keys
          .filter((k) => comesAfter(k, key, order))
          .map((k) => `${k.at} ${k.id}`)
          .sort();
        expect(inMemory).toEqual(fromDb);
      }
    });
  }

  it.runIf(ON_POSTGRES)('on PostgreSQL, seek the next page in the index', async () => {
    const query = db
      .selectFrom('rows')
      .select(['created_at', 'id'])
      .where('merchant_id', '=', 'm1')
      .where((eb) => afterKey(eb, 'created_at', 'id', { at: AT[1]!, id: 'b1' }, 'desc'))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(2)
      .compile();
    const plan = await db.transaction().execute(async (trx) => {
      // A table this small is read whole otherwise: the question is whether the index can seek.
      await sql`set local enable_seqscan = off`.execute(trx);
      const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>({
        ...query,
        sql: `explain ${query.sql}`,
      });
      return rows.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(/Index Cond: \(\(merchant_id = [^)]+\) AND \(ROW\(created_at, id\) < ROW\(/);
  });
});
