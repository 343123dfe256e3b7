/**
 * Precompiled queries (db/prepared.ts): a constant LIMIT or OFFSET is written into the SQL, not
 * bound (a bound LIMIT makes SQLite re-prepare the statement on every call), and the answers are
 * those of the same query with the value bound.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordAudit } from '../../src/audit/store.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase, writeTx, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { inlineLimits, prepare } from '../../src/db/prepared.js';
import { tempDir } from '../helpers/app.js';

const newest = prepare(['action'], (db, p) =>
  db.selectFrom('audit_log').select(['subject_id']).where('action', '=', p('action')).orderBy('id', 'desc').limit(2).offset(1),
);
const firstN = prepare(['action', 'n'], (db, p) => db.selectFrom('audit_log').select(['subject_id']).where('action', '=', p('action')).orderBy('id').limit(p('n')));

describe('prepared queries', () => {
  let database: Database;
  beforeEach(async () => {
    database = openDatabase(path.join(tempDir(), 'p.db'));
    await migrateToLatest(database.db);
    await writeTx(database.db, async (trx) => {
      for (const s of ['a', 'b', 'c', 'd']) await recordAudit(trx, systemClock, { actor: 't', action: 'probe', subjectType: 'p', subjectId: s });
    });
  });
  afterEach(() => database.close());

  it('write a constant limit and offset into the SQL and answer as with them bound', async () => {
    expect(newest.sql).toMatch(/ limit 2 offset 1$/);
    expect((await newest.all(database.db, { action: 'probe' })).map((r) => r.subject_id)).toEqual(['c', 'b']);
    // The same inside a transaction (run on the writer).
    const inTx = await writeTx(database.db, (trx) => newest.all(trx, { action: 'probe' }));
    expect(inTx.map((r) => r.subject_id)).toEqual(['c', 'b']);
  });

  it('keep a limit given per call as a parameter', async () => {
    expect(firstN.sql).toMatch(/ limit \?$/);
    expect((await firstN.all(database.db, { action: 'probe', n: 3 })).map((r) => r.subject_id)).toEqual(['a', 'b', 'c']);
    expect((await firstN.all(database.db, { action: 'probe', n: 1 })).map((r) => r.subject_id)).toEqual(['a']);
  });

  it('leave question marks inside quoted text and values that are not integers alone', () => {
    const order = [{ value: 'x' }, { value: 5 }, { value: 1.5 }, { value: 7n }];
    const out = inlineLimits(`select 'it''s ? limit ?', "a?" from t where s = ? limit ? offset ? union select 1 limit ?`, order);
    expect(out.sql).toBe(`select 'it''s ? limit ?', "a?" from t where s = ? limit 5 offset ? union select 1 limit 7`);
    expect(out.order).toEqual([{ value: 'x' }, { value: 1.5 }]);
    // SQL with a comment is left as it is (a quote in a comment would mislead the scan).
    const commented = `select ? limit ? -- it's`;
    expect(inlineLimits(commented, [{ value: 'x' }, { value: 5 }])).toEqual({ sql: commented, order: [{ value: 'x' }, { value: 5 }] });
    expect(() => inlineLimits('select ? , ?', [{ value: 1 }])).toThrow(/more placeholders/);
    expect(() => inlineLimits('select ?', [{ value: 1 }, { value: 2 }])).toThrow(/fewer placeholders/);
  });
});
