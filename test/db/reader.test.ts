/**
 * Reads outside a transaction run on their own connection: they never wait for a write
 * transaction in flight and see the last committed state; reads inside a transaction see the
 * transaction's own writes. Holds for kysely queries and for precompiled ones (db/prepared.ts).
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordAudit } from '../../src/audit/store.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase, writeTx, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { prepare } from '../../src/db/prepared.js';
import { tempDir } from '../helpers/app.js';

const probes = prepare(['action'], (db, p) => db.selectFrom('audit_log').select(['subject_id', 'action']).where('action', '=', p('action')).orderBy('id'));
const insertProbe = prepare(['subject', 'at'], (db, p) =>
  db.insertInto('audit_log').values({ actor: 't', action: 'probe', subject_type: 'p', subject_id: p('subject'), details: '{}', at: p('at') }),
);
const insertProbeReturning = prepare(['subject', 'at'], (db, p) =>
  db.insertInto('audit_log').values({ actor: 't', action: 'probe', subject_type: 'p', subject_id: p('subject'), details: '{}', at: p('at') }).returning('subject_id'),
);
const countProbes = async (db: Database['db']) => (await db.selectFrom('audit_log').select('id').where('action', '=', 'probe').execute()).length;

describe('the read connection', () => {
  let database: Database;
  beforeEach(async () => {
    database = openDatabase(path.join(tempDir(), 'r.db'));
    await migrateToLatest(database.db);
  });
  afterEach(() => database.close());

  it('answers reads while a write transaction is open, with the committed state, and the transaction sees its own writes', async () => {
    const { db } = database;
    await writeTx(db, (trx) => recordAudit(trx, systemClock, { actor: 't', action: 'probe', subjectType: 'p', subjectId: 'before' }));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const seenInside: string[][] = [];
    const tx = writeTx(db, async (trx) => {
      await recordAudit(trx, systemClock, { actor: 't', action: 'probe', subjectType: 'p', subjectId: 'inside' });
      seenInside.push((await probes.all(trx, { action: 'probe' })).map((r) => r.subject_id));
      seenInside.push((await trx.selectFrom('audit_log').select('subject_id').where('action', '=', 'probe').execute()).map((r) => r.subject_id));
      await held;
    });
    await new Promise((r) => setTimeout(r, 20));
    // The transaction holds the writer; these would wait for it on a single connection.
    expect(await countProbes(db)).toBe(1);
    expect((await probes.all(db, { action: 'probe' })).map((r) => r.subject_id)).toEqual(['before']);
    expect(await probes.first(db, { action: 'probe' })).toEqual({ subject_id: 'before', action: 'probe' });
    release();
    await tx;
    expect(seenInside).toEqual([['before', 'inside'], ['before', 'inside']]);
    expect((await probes.all(db, { action: 'probe' })).map((r) => r.subject_id)).toEqual(['before', 'inside']);
  });

  it('still sends statements that write, outside a transaction, to the writer after the open transaction', async () => {
    const { db } = database;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    const tx = writeTx(db, async (trx) => {
      await recordAudit(trx, systemClock, { actor: 't', action: 'probe', subjectType: 'p', subjectId: 'tx' });
      await held;
      order.push('tx done');
    });
    const single = recordAudit(db, systemClock, { actor: 't', action: 'probe', subjectType: 'p', subjectId: 'single' }).then(() => order.push('single'));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    release();
    await Promise.all([tx, single]);
    expect(order).toEqual(['tx done', 'single']);
    expect(await countProbes(db)).toBe(2);
  });

  it('runs prepared statements of a transaction on its writer: its own writes seen, a rollback undoes them, a stray call after it never joins it', async () => {
    const { db } = database;
    const at = new Date().toISOString();
    let stray!: Database['db'];
    const inside = await writeTx(db, async (trx) => {
      stray = trx as unknown as Database['db'];
      const plain = await insertProbe.run(trx, { subject: 'a', at });
      const returned = await insertProbeReturning.run(trx, { subject: 'b', at });
      return { plain, returned, seen: (await probes.all(trx, { action: 'probe' })).map((r) => r.subject_id), outside: await countProbes(db) };
    });
    expect(inside).toEqual({ plain: { changes: 1n, rows: [] }, returned: { changes: 0n, rows: [{ subject_id: 'b' }] }, seen: ['a', 'b'], outside: 0 });
    expect(await countProbes(db)).toBe(2);

    await expect(
      writeTx(db, async (trx) => {
        await insertProbe.run(trx, { subject: 'rolled back', at });
        expect(await probes.first(trx, { action: 'probe' })).toEqual({ subject_id: 'a', action: 'probe' });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect((await probes.all(db, { action: 'probe' })).map((r) => r.subject_id)).toEqual(['a', 'b']);
    // The transaction has ended: its handle no longer reaches the writer directly.
    await expect(insertProbe.run(stray, { subject: 'late', at })).rejects.toThrow();
    expect(await countProbes(db)).toBe(2);
  });
});
