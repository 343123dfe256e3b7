/**
 * A query compiled once and run again with new values (src/db/reusable.ts) answers what the same
 * query built afresh answers, on both engines at once: each engine compiles its own SQL, a null
 * value compiles a query of its own, a value used other than as a parameter is refused, and a
 * fenced handle still refuses a write outside its transactions.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fencedDb, openDatabase, writeTx, type Database } from '../../src/db/database.js';
import { UnfencedWriteError } from '../../src/db/fence.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { reusableQuery } from '../../src/db/reusable.js';
import { tempDir } from '../helpers/app.js';
import { createPostgresDatabase, type TestPostgres } from '../helpers/database.js';
import { merchantRow } from '../helpers/rows.js';

const merchant = (id: string, name: string, site: string | null) => merchantRow(id, { name, site_url: site });

const insert = reusableQuery((db, row: ReturnType<typeof merchant>) => db.insertInto('merchants').values(row));
const bySite = reusableQuery((db, p: { site: string | null }) => {
  const q = db.selectFrom('merchants').select('id').orderBy('id');
  return p.site === null ? q.where('site_url', 'is', null) : q.where('site_url', '=', p.site);
});
const byName = reusableQuery((db, p: { name: string }) =>
  db.selectFrom('merchants').select(['id', 'name']).where('name', '=', p.name),
);

let pg: TestPostgres;
const engines: Database[] = [];

beforeAll(async () => {
  pg = await createPostgresDatabase();
  engines.push(openDatabase(path.join(tempDir(), 'reusable.db')), openDatabase(pg.url));
  for (const e of engines) {
    await migrateToLatest(e.db);
    await insert(e.db, merchant('m1', 'First', 'https://a.example'));
    await insert(e.db, merchant('m2', 'Second', null));
    await insert(e.db, merchant('m3', 'Third', 'https://b.example'));
  }
});

afterAll(async () => {
  for (const e of engines) await e.close();
  await pg?.drop();
});

describe('reusableQuery', () => {
  it('runs the compiled query with each call’s own values, on SQLite and on PostgreSQL alike', async () => {
    for (const e of engines) {
      expect(await byName(e.db, { name: 'Second' })).toEqual([{ id: 'm2', name: 'Second' }]);
      expect(await byName(e.db, { name: 'Third' })).toEqual([{ id: 'm3', name: 'Third' }]);
      expect(await byName(e.db, { name: 'nobody' })).toEqual([]);
      const rows = await e.db.selectFrom('merchants').select(['id', 'site_url']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: 'm1', site_url: 'https://a.example' },
        { id: 'm2', site_url: null },
        { id: 'm3', site_url: 'https://b.example' },
      ]);
    }
  });

  it('compiles a query of its own for a null value, so a shape chosen by a null test stays right', async () => {
    for (const e of engines) {
      expect(await bySite(e.db, { site: 'https://b.example' })).toEqual([{ id: 'm3' }]);
      expect(await bySite(e.db, { site: null })).toEqual([{ id: 'm2' }]);
      expect(await bySite(e.db, { site: 'https://a.example' })).toEqual([{ id: 'm1' }]);
    }
  });

  it('lets a fenced handle refuse a write outside its transactions, though the query was compiled before', async () => {
    for (const e of engines) {
      const fenced = fencedDb(e.db, async () => {});
      await expect(insert(fenced, merchant('m4', 'Fourth', null))).rejects.toThrow(UnfencedWriteError);
      expect(await byName(e.db, { name: 'Fourth' })).toEqual([]);
      await writeTx(fenced, (trx) => insert(trx, merchant('m4', 'Fourth', null)));
      expect(await byName(fenced, { name: 'Fourth' })).toEqual([{ id: 'm4', name: 'Fourth' }]);
    }
  });

  it('refuses a query whose shape depends on a value other than through a parameter', async () => {
    const bad = reusableQuery((db, p: { limit: string }) =>
      db
        .selectFrom('merchants')
        .select('id')
        .where('name', '=', p.limit.length > 3 ? 'x' : 'y'),
    );
    await expect(bad(engines[0]!.db, { limit: 'abc' })).rejects.toThrow(/"limit" is not a parameter/);
  });
});
