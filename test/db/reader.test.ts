/**
 * Reads outside a transaction run on their own connection: they never wait for a write
 * transaction in flight and see the last committed state; reads inside a transaction see the
 * transaction's own writes, and a rollback undoes them.
 */
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { recordAudit } from '../../src/audit/store.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase, writeTx, type Database, type Executor } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

const probes = (db: Executor) =>
  db.selectFrom('audit_log').select(['subject_id', 'action']).where('action', '=', 'probe').orderBy('id');
const subjects = async (db: Executor) => (await probes(db).execute()).map((r) => r.subject_id);
const countProbes = async (db: Database['db']) =>
  (await db.selectFrom('audit_log').select('id').where('action', '=', 'probe').execute()).length;

describeSqliteOnly("SQLite's separate read connection; PostgreSQL's pool serves reads")('the read connection', () => {
  let database: Database;
  beforeEach(async () => {
    database = openDatabase(path.join(tempDir(), 'r.db'));
    await migrateToLatest(database.db);
  });
  afterEach(() => database.close());

  it('answers reads while a write transaction is open, with the committed state, and the transaction sees its own writes', async () => {
    const { db } = database;
    await writeTx(db, (trx) =>
      recordAudit(trx, systemClock, { actor: 't', action: 'probe', subjectType: 'p', subjectId: 'before' }),
    );
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const seenInside: string[][] = [];
    const tx = writeTx(db, async (trx) => {
      await recordAudit(trx, systemClock, { actor: 't', action: 'probe', subjectType: 'p', subjectId: 'inside' });
      seenInside.push(await subjects(trx));
      await held;
    });
    await new Promise((r) => setTimeout(r, 20));
    // The transaction holds the writer; these would wait for it on a single connection.
    expect(await countProbes(db)).toBe(1);
    expect(await subjects(db)).toEqual(['before']);
    expect(await probes(db).executeTakeFirst()).toEqual({ subject_id: 'before', action: 'probe' });
    release();
    await tx;
    expect(seenInside).toEqual([['before', 'inside']]);
    expect(await subjects(db)).toEqual(['before', 'inside']);
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
    // A bare statement, as no store writes outside a transaction: the driver's routing is what is tested.
    const single = db
      .insertInto('audit_log')
      .values({
        at: systemClock.now().toISOString(),
        actor: 't',
        action: 'probe',
        subject_type: 'p',
        subject_id: 'single',
        merchant_id: null,
        details: '{}',
      })
      .execute()
      .then(() => order.push('single'));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    release();
    await Promise.all([tx, single]);
    expect(order).toEqual(['tx done', 'single']);
    expect(await countProbes(db)).toBe(2);
  });

  it('undoes the writes of a transaction that throws, which it saw itself until then', async () => {
    const { db } = database;
    await writeTx(db, (trx) =>
      recordAudit(trx, systemClock, { actor: 't', action: 'probe', subjectType: 'p', subjectId: 'kept' }),
    );
    let seen: string[] = [];
    await expect(
      writeTx(db, async (trx) => {
        await recordAudit(trx, systemClock, {
          actor: 't',
          action: 'probe',
          subjectType: 'p',
          subjectId: 'rolled back',
        });
        seen = await subjects(trx);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(seen).toEqual(['kept', 'rolled back']);
    expect(await subjects(db)).toEqual(['kept']);
  });
});
