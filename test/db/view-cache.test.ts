/**
 * Kept answers (db/view-cache.ts) are never older than the database: every write through this
 * process's writer drops the answers built from the rows it touched, whatever code wrote them; an
 * answer read while a write transaction that touched it is open, or while any invalidation ran, is
 * not kept; another connection's commit drops everything within OTHERS_CHECK_MS.
 */
import { sql } from 'kysely';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, writeTx, type Database } from '../../src/db/database.js';
import { MAX_KEPT_CHARS, OTHERS_CHECK_MS, PENDING_LIMIT, ViewCaches, type ViewCache } from '../../src/db/view-cache.js';
import { tempDir } from '../helpers/app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('kept answers', () => {
  let file: string;
  let database: Database;
  let caches: ViewCaches;
  let cache: ViewCache;
  // The tables are the test's own: the mechanism is the same for invoices with their deposits.
  const exec = (q: string) => sql.raw(q).execute(database.db);
  /** The answer as a GET builds it: the row and its parts, read on the read connection. */
  const read = async (id: string): Promise<string> => {
    const row = await sql<{ id: string; status: string }>`select id, status from things where id = ${id}`.execute(database.db);
    const parts = await sql<{ amount: number }>`select amount from parts where thing_id = ${id} order by id`.execute(database.db);
    return JSON.stringify({ ...row.rows[0], parts: parts.rows.map((p) => p.amount) });
  };
  /** A GET through the cache: the kept answer, or a read that is kept when nothing changed meanwhile. */
  const get = async (id: string, owner = 'm1'): Promise<string> => {
    const kept = cache.lookup(id, owner);
    if (kept !== undefined) return kept;
    const token = cache.begin(id);
    const body = await read(id);
    cache.fill(token, id, owner, body);
    return body;
  };

  beforeEach(async () => {
    file = path.join(tempDir(), 'v.db');
    database = openDatabase(file);
    await exec('create table things (id text primary key, status text not null)');
    await exec('create table parts (id integer primary key, thing_id text, amount integer not null)');
    await exec("insert into things values ('a', 'created'), ('b', 'created')");
    caches = new ViewCaches(database.sqlite);
    cache = caches.create('thing', [
      { table: 'things', key: 'id' },
      { table: 'parts', key: 'thing_id' },
    ], 1_000_000);
  });
  afterEach(() => database.close());

  it('answers from memory until a write through this process touches the row, by any code path', async () => {
    expect(await get('a')).toBe('{"id":"a","status":"created","parts":[]}');
    expect(cache.size).toBe(1);
    // A row changed behind the cache's back would be served stale: prove the answer is the kept one.
    expect(cache.lookup('a', 'm1')).toBe('{"id":"a","status":"created","parts":[]}');
    await exec("update things set status = 'seen' where id = 'a'");
    expect(cache.lookup('a', 'm1')).toBeUndefined();
    expect(await get('a')).toBe('{"id":"a","status":"seen","parts":[]}');
    await writeTx(database.db, (trx) => sql`insert into parts (thing_id, amount) values ('a', 5)`.execute(trx));
    expect(await get('a')).toBe('{"id":"a","status":"seen","parts":[5]}');
    await exec("update parts set amount = 7 where thing_id = 'a'");
    expect(await get('a')).toBe('{"id":"a","status":"seen","parts":[7]}');
    // A part moved to another thing changes both.
    expect(await get('b')).toBe('{"id":"b","status":"created","parts":[]}');
    await exec("update parts set thing_id = 'b' where thing_id = 'a'");
    expect(await get('a')).toBe('{"id":"a","status":"seen","parts":[]}');
    expect(await get('b')).toBe('{"id":"b","status":"created","parts":[7]}');
    await exec("delete from parts where thing_id = 'b'");
    expect(await get('b')).toBe('{"id":"b","status":"created","parts":[]}');
  });

  it('keeps the answers of rows a write did not touch', async () => {
    await get('a');
    await get('b');
    await exec("update things set status = 'seen' where id = 'b'");
    await exec("insert into parts (thing_id, amount) values ('b', 1)");
    expect(cache.lookup('a', 'm1')).toBe('{"id":"a","status":"created","parts":[]}');
    expect(cache.lookup('b', 'm1')).toBeUndefined();
  });

  it('takes the insert of a new object (its own id) as no change: creations refuse no fill in flight', async () => {
    await exec('create table objects (id text primary key)');
    const objects = caches.create('object', [{ table: 'objects', key: 'id', ownId: true }], 1_000_000);
    const token = objects.begin('a');
    await exec("insert into objects values ('new-one')");
    objects.fill(token, 'a', 'm1', 'A');
    expect(objects.lookup('a', 'm1')).toBe('A');
    // Parts keyed by their thing's id are not new objects: their inserts still count.
    const token2 = cache.begin('a');
    await exec("insert into parts (thing_id, amount) values ('b', 1)");
    cache.fill(token2, 'a', 'm1', 'A');
    expect(cache.lookup('a', 'm1')).toBeUndefined();
  });

  it('never keeps what was read while an open write transaction had changed the row, and serves the commit after it', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let changed!: () => void;
    const inside = new Promise<void>((r) => (changed = r));
    const tx = writeTx(database.db, async (trx) => {
      await sql`update things set status = 'paid' where id = 'a'`.execute(trx);
      changed();
      await held;
    });
    await inside;
    // The read connection still sees the committed state: answered, not kept.
    expect(await get('a')).toBe('{"id":"a","status":"created","parts":[]}');
    expect(cache.lookup('a', 'm1')).toBeUndefined();
    expect(cache.size).toBe(0);
    // Another row, untouched by the open transaction, is kept as usual.
    await get('b');
    expect(cache.size).toBe(1);
    release();
    await tx;
    expect(await get('a')).toBe('{"id":"a","status":"paid","parts":[]}');
    expect(cache.lookup('a', 'm1')).toBe('{"id":"a","status":"paid","parts":[]}');
  });

  it('drops the answers a rolled-back transaction touched, and they come back from the database unchanged', async () => {
    await get('a');
    await expect(
      writeTx(database.db, async (trx) => {
        await sql`update things set status = 'gone' where id = 'a'`.execute(trx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await get('a')).toBe('{"id":"a","status":"created","parts":[]}');
  });

  it('does not keep an answer whose read straddled a commit that touched it (no mix of two states)', async () => {
    const token = cache.begin('a');
    const status = (await sql<{ status: string }>`select status from things where id = 'a'`.execute(database.db)).rows[0]!.status;
    // Committed between the row and its parts: a kept answer would mix the two states.
    await exec("insert into parts (thing_id, amount) values ('a', 9)");
    cache.fill(token, 'a', 'm1', JSON.stringify({ id: 'a', status, parts: [] }));
    expect(cache.lookup('a', 'm1')).toBeUndefined();
    expect(await get('a')).toBe('{"id":"a","status":"created","parts":[9]}');
  });

  it("answers another owner's lookup from the database, never from the kept answer", async () => {
    await get('a', 'm1');
    expect(cache.lookup('a', 'm2')).toBeUndefined();
    expect(cache.lookup('a', 'm1')).toBeDefined();
  });

  it("sees another process's commit within OTHERS_CHECK_MS", async () => {
    await get('a');
    await get('b');
    const other = openDatabase(file);
    try {
      await sql`update things set status = 'approved' where id = 'a'`.execute(other.db);
      await sleep(OTHERS_CHECK_MS + 5);
      expect(cache.lookup('a', 'm1')).toBeUndefined();
      // Everything goes: the other process's changes are not known row by row.
      expect(cache.lookup('b', 'm1')).toBeUndefined();
      expect(await get('a')).toBe('{"id":"a","status":"approved","parts":[]}');
      expect(cache.lookup('a', 'm1')).toBe('{"id":"a","status":"approved","parts":[]}');
    } finally {
      await other.close();
    }
  });

  it("does not keep an answer read before another process's commit and filled after the check that saw it", async () => {
    await get('b');
    const other = openDatabase(file);
    try {
      const token = cache.begin('a');
      const before = await read('a');
      await sql`update things set status = 'approved' where id = 'a'`.execute(other.db);
      await sleep(OTHERS_CHECK_MS + 5);
      // A lookup of another key runs the check and drops everything...
      expect(cache.lookup('b', 'm1')).toBeUndefined();
      // ...and the fill begun before it is refused.
      cache.fill(token, 'a', 'm1', before);
      expect(await get('a')).toBe('{"id":"a","status":"approved","parts":[]}');
    } finally {
      await other.close();
    }
  });

  it('serves exactly what the database holds through a random mix of writes, open transactions, rollbacks and other processes', async () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const ids = ['a', 'b', 'c', 'd'];
    for (const id of ['c', 'd']) await exec(`insert into things values ('${id}', 'created')`);
    const other = openDatabase(file);
    let hits = 0;
    const check = async () => {
      for (const id of ids) {
        const kept = cache.lookup(id, 'm1');
        const truth = await read(id);
        if (kept !== undefined) {
          hits++;
          expect(kept).toBe(truth);
        }
        await get(id);
      }
    };
    const ops = [0, 0, 0, 0];
    try {
      for (let step = 0; step < 300; step++) {
        const id = ids[rnd(ids.length)]!;
        const op = rnd(4);
        ops[op]!++;
        if (op === 0) await exec(`update things set status = 's${step}' where id = '${id}'`);
        else if (op === 1) await exec(`insert into parts (thing_id, amount) values ('${id}', ${step})`);
        else if (op === 2) {
          // An open transaction with reads in the middle, committed or rolled back.
          const rollback = rnd(3) === 0;
          const outcome = await writeTx(database.db, async (trx) => {
            await sql`update things set status = ${`t${step}`} where id = ${id}`.execute(trx);
            await check();
            await sql`delete from parts where thing_id = ${id}`.execute(trx);
            await check();
            if (rollback) throw new Error('rollback');
            return 'committed';
          }).catch((e: Error) => e.message);
          expect(outcome).toBe(rollback ? 'rollback' : 'committed');
        } else {
          await sql`update things set status = ${`o${step}`} where id = ${id}`.execute(other.db);
          await sleep(OTHERS_CHECK_MS + 2);
        }
        await check();
      }
    } finally {
      await other.close();
    }
    // Every kind of step ran, and the cache answered most reads: the comparison was not made on misses only.
    expect(Math.min(...ops)).toBeGreaterThan(40);
    expect(hits).toBeGreaterThan(900);
  });

  it('holds answers up to its budget, dropping the oldest first, and keeps no answer over MAX_KEPT_CHARS', async () => {
    // Each entry costs its text plus 200 for its key and slot: two of one character fit in 402.
    const small = caches.create('small', [{ table: 'things', key: 'id' }], 402);
    for (const id of ['x', 'y', 'z']) small.fill(small.begin(id), id, 'm1', id);
    expect(small.size).toBe(2);
    expect(small.lookup('x', 'm1')).toBeUndefined();
    expect(small.lookup('z', 'm1')).toBe('z');
    cache.fill(cache.begin('a'), 'a', 'm1', 'x'.repeat(MAX_KEPT_CHARS + 1));
    expect(cache.lookup('a', 'm1')).toBeUndefined();
  });

  it('remembers at most PENDING_LIMIT changed keys of open transactions, and keeps nothing read inside one past it', async () => {
    await writeTx(database.db, async (trx) => {
      for (let i = 0; i < PENDING_LIMIT + 50; i++) await sql`insert into parts (thing_id, amount) values (${`k${i}`}, 1)`.execute(trx);
      expect(caches.pendingSize).toBeLessThanOrEqual(PENDING_LIMIT);
      // Every key counts as changed now, also one the transaction never touched.
      expect(cache.begin('untouched')).toBeNull();
    });
    // Seen outside a transaction again: the memory goes, answers are kept as before.
    expect(cache.begin('a')).not.toBeNull();
    expect(caches.pendingSize).toBe(0);
    await get('a');
    expect(cache.lookup('a', 'm1')).toBeDefined();
  });

  it('forgets the keys of ended transactions at the next write outside one, with no read in between', async () => {
    for (let i = 0; i < 20; i++) await writeTx(database.db, (trx) => sql`update things set status = ${`s${i}`} where id = 'a'`.execute(trx));
    expect(caches.pendingSize).toBe(1);
    await exec("update things set status = 'autocommit' where id = 'b'");
    expect(caches.pendingSize).toBe(0);
  });

  it("keeps answers again after another process's commit was first noticed inside a transaction", async () => {
    await get('a');
    const other = openDatabase(file);
    try {
      await sql`update things set status = 'approved' where id = 'b'`.execute(other.db);
    } finally {
      await other.close();
    }
    await sleep(OTHERS_CHECK_MS + 5);
    await writeTx(database.db, async () => {
      // The check runs here, inside the transaction: everything goes, nothing is kept meanwhile.
      expect(cache.lookup('a', 'm1')).toBeUndefined();
      expect(await get('b')).toBe('{"id":"b","status":"approved","parts":[]}');
      expect(cache.size).toBe(0);
    });
    expect(await get('b')).toBe('{"id":"b","status":"approved","parts":[]}');
    expect(cache.lookup('b', 'm1')).toBe('{"id":"b","status":"approved","parts":[]}');
  });

  it('is one set of caches per connection: a second would take over the function the first one relies on', () => {
    expect(() => new ViewCaches(database.sqlite)).toThrow(/already/);
  });

  it('cannot be called by a trigger stored in the database file, only by its own TEMP triggers', async () => {
    await exec("create trigger stored after update on things begin select paygate_view_changed('thing', new.id); end");
    await expect(exec("update things set status = 'x' where id = 'a'")).rejects.toThrow(/unsafe use of paygate_view_changed/);
  });
});
