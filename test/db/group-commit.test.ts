/** Group commit: units share a transaction, a failing unit rolls back alone, answers come after COMMIT. */
import { sql } from 'kysely';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordAudit } from '../../src/audit/store.js';
import { ManualClock } from '../../src/clock.js';
import { openSqlite, type SqliteDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { GroupCommit } from '../../src/db/group-commit.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

describeSqliteOnly('batches in one SQLite transaction; on PostgreSQL each unit is its own (test/db/engines.test.ts)')(
  'group commit',
  () => {
    let database: SqliteDatabase;
    const clock = new ManualClock('2026-03-01T10:00:00Z');
    const write = (subjectId: string) => (trx: Parameters<Parameters<GroupCommit['run']>[0]>[0]) =>
      recordAudit(trx, clock, { actor: 't', action: 'a', subjectType: 'x', subjectId });
    const subjects = async () =>
      (await database.db.selectFrom('audit_log').select('subject_id').orderBy('id').execute()).map((r) => r.subject_id);

    beforeAll(async () => {
      database = openSqlite(path.join(tempDir(), 'b.db'));
      await migrateToLatest(database.db);
    });
    afterAll(() => database.close());

    it('commits concurrent units together and rolls back only the unit that failed', async () => {
      const b = new GroupCommit(database.db);
      const results = await Promise.allSettled([
        b.run(async (trx) => (await write('one')(trx), 1)),
        b.run(async (trx) => {
          await write('doomed')(trx);
          throw new Error('refused');
        }),
        b.run(async (trx) => (await write('three')(trx), 3)),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason.message).toBe('refused');
      expect(await subjects()).toEqual(['one', 'three']);
      expect(b.batches).toBe(1);
      expect(b.units).toBe(3);
    });

    it('lets a unit see the writes of earlier units of its batch', async () => {
      const b = new GroupCommit(database.db);
      const seen: number[] = [];
      const count = async (trx: Parameters<Parameters<GroupCommit['run']>[0]>[0]) =>
        Number(
          (
            await trx
              .selectFrom('audit_log')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('subject_id', '=', 'same')
              .executeTakeFirstOrThrow()
          ).n,
        );
      await Promise.all(
        Array.from({ length: 5 }, () =>
          b.run(async (trx) => {
            seen.push(await count(trx));
            await write('same')(trx);
          }),
        ),
      );
      expect(seen).toEqual([0, 1, 2, 3, 4]);
    });

    it('caps batch size and rejects every unit of a batch whose COMMIT fails', async () => {
      const b = new GroupCommit(database.db, 2);
      await Promise.all(Array.from({ length: 5 }, (_, i) => b.run(write(`cap-${i}`))));
      expect(b.batches).toBe(3);
      const failing = new GroupCommit(database.db);
      // A deferred foreign-key violation only surfaces at COMMIT.
      const results = await Promise.allSettled([
        failing.run(async (trx) => {
          await sql`pragma defer_foreign_keys = on`.execute(trx);
          await trx
            .insertInto('events')
            .values({
              id: 'evt_x',
              merchant_id: 'no-such-merchant',
              type: 't',
              subject_id: 's',
              data: '{}',
              created_at: '',
            })
            .execute();
        }),
        failing.run(write('innocent')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect(await subjects()).not.toContain('innocent');
    });

    it('fails the whole batch with the database error when SQLite ended the transaction itself', async () => {
      const b = new GroupCommit(database.db);
      // A real SQLITE_FULL: the database may not grow past its current size. For an insert that
      // needs no statement journal (audit_log has no unique index to abort on), SQLite then rolls
      // back the whole transaction, not the statement: the group's savepoint is gone with it.
      const pages = database.sqlite.pragma('page_count', { simple: true }) as number;
      const limit = database.sqlite.pragma('max_page_count', { simple: true }) as number;
      const results = await Promise.allSettled([
        b.run(write('before-full')),
        b.run(async (trx) => {
          await sql.raw(`pragma max_page_count = ${pages}`).execute(trx);
          await trx
            .insertInto('audit_log')
            .values({
              at: '',
              actor: 't',
              action: 'a',
              subject_type: 'x',
              subject_id: 'big',
              merchant_id: null,
              details: 'x'.repeat(2_000_000),
            })
            .execute();
        }),
        b.run(write('after-full')),
      ]);
      database.sqlite.pragma(`max_page_count = ${limit}`);
      const reasons = results.map((r) =>
        r.status === 'rejected' ? (r.reason as { code?: string }).code : 'fulfilled',
      );
      // Every unit hears the disk-full error (503 on the API), none a missing savepoint (500).
      expect(reasons).toEqual(['SQLITE_FULL', 'SQLITE_FULL', 'SQLITE_FULL']);
      expect(await subjects()).not.toContain('before-full');
      expect(await subjects()).not.toContain('after-full');
      // The group commit goes on: the next unit commits.
      await b.run(write('recovered'));
      expect(await subjects()).toContain('recovered');
    });

    it('gives the event loop a turn every few units of a batch, before its COMMIT', async () => {
      const b = new GroupCommit(database.db, 256, 2);
      const order: string[] = [];
      const units = Array.from({ length: 6 }, (_, i) =>
        b.run(async (trx) => {
          await write(`turn-${i}`)(trx);
          order.push(`unit ${i}`);
          // What a request arriving now would do: its callback runs at the next turn of the loop,
          // and a read there sees only what is committed, none of this batch.
          if (i === 0)
            setImmediate(
              () =>
                void subjects().then((s) => order.push(`request saw ${s.filter((x) => x.startsWith('turn-')).length}`)),
            );
        }),
      );
      await Promise.all(units);
      expect(b.batches).toBe(1);
      // The request ran inside the batch (after unit 1, at the first turn), not after the COMMIT.
      expect(order).toEqual(['unit 0', 'unit 1', 'request saw 0', 'unit 2', 'unit 3', 'unit 4', 'unit 5']);
      expect((await subjects()).filter((x) => x.startsWith('turn-'))).toHaveLength(6);
    });
  },
);
