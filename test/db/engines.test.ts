/**
 * What src/db promises on either engine (docs/database.md), on the engine under test: a lost
 * idempotency race is recognised by its table and columns; read-then-write transactions from
 * separate connection pools (as separate processes) never lose an update; a database that cannot
 * serve is "unavailable" (503), not a bug; integers come back as numbers. On PostgreSQL also: the
 * group commit runs each unit in its own transaction, and two processes migrating one new
 * database at once both succeed with each migration applied once.
 */
import { sql } from 'kysely';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isDatabaseUnavailable,
  isUniqueViolation,
  openDatabase,
  writeTx,
  type Database,
} from '../../src/db/database.js';
import { GroupCommit } from '../../src/db/group-commit.js';
import { MIGRATIONS, migrateToLatest } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/app.js';
import { createPostgresDatabase, ON_POSTGRES, testDatabaseUrl } from '../helpers/database.js';
import { merchantRow } from '../helpers/rows.js';

const AT = '2026-01-01T00:00:00.000Z';
const merchant = (id: string) => merchantRow(id, { at: AT });

let url: string;
let drop: () => Promise<void>;
let database: Database;

beforeAll(async () => {
  ({ url, drop } = await testDatabaseUrl(path.join(tempDir(), 'engines.db')));
  database = openDatabase(url);
  await migrateToLatest(database.db);
  await database.db.insertInto('merchants').values(merchant('m')).execute();
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

describe('errors by meaning', () => {
  it('names the unique key that refused a row by its table and columns', async () => {
    const err = await database.db
      .insertInto('merchants')
      .values(merchant('m'))
      .execute()
      .catch((e: unknown) => e);
    expect(isUniqueViolation(err, 'merchants', ['id'])).toBe(true);
    expect(isUniqueViolation(err, 'merchants', ['name'])).toBe(false);
    expect(isUniqueViolation(err, 'payouts', ['id'])).toBe(false);

    const row = { merchant_id: 'm', asset: 'TRX', address: 'T1', usable_from: AT, created_at: AT, created_by: 't' };
    await database.db
      .insertInto('whitelist_entries')
      .values({ ...row, id: 'w1' })
      .execute();
    const dup = await database.db
      .insertInto('whitelist_entries')
      .values({ ...row, id: 'w2' })
      .execute()
      .catch((e: unknown) => e);
    expect(isUniqueViolation(dup, 'whitelist_entries', ['merchant_id', 'asset', 'address'])).toBe(true);
    expect(isUniqueViolation(dup, 'whitelist_entries', ['id'])).toBe(false);
    expect(isUniqueViolation(new Error('other'), 'merchants', ['id'])).toBe(false);
  });

  it('calls a closed database unavailable (503), not a bug', async () => {
    const other = openDatabase(url);
    await other.db.selectFrom('merchants').select('id').execute();
    await other.close();
    const err = await other.db
      .selectFrom('merchants')
      .select('id')
      .execute()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.skipIf(!ON_POSTGRES)('calls a PostgreSQL server that cannot be reached unavailable', async () => {
    const u = new URL(url);
    u.port = '1';
    const gone = openDatabase(u.toString());
    try {
      const err = await sql`select 1`.execute(gone.db).catch((e: unknown) => e);
      expect(isDatabaseUnavailable(err)).toBe(true);
    } finally {
      await gone.close();
    }
  });

  it.skipIf(!ON_POSTGRES)('calls a statement stopped by statement_timeout unavailable (503), not a bug', async () => {
    const err = await database.db
      .transaction()
      .execute(async (trx) => {
        await sql`set local statement_timeout = 50`.execute(trx);
        await sql`select pg_sleep(2)`.execute(trx);
      })
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('57014');
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it('calls a CHECK refusal a bug of the caller, not unavailability', async () => {
    const err = await database.db
      .updateTable('merchants')
      .set({ enabled: 7 })
      .execute()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});

describe('write transactions', () => {
  it('never lose an update among read-then-write transactions of separate processes', async () => {
    await database.db.insertInto('merchant_event_sequences').values({ merchant_id: 'm', last_seq: 0 }).execute();
    // Two pools (on SQLite two sets of connections to the file), as two processes have.
    const a = openDatabase(url);
    const b = openDatabase(url);
    try {
      const bump = (d: Database) =>
        writeTx(d.db, async (trx) => {
          const { last_seq } = await trx
            .selectFrom('merchant_event_sequences')
            .select('last_seq')
            .where('merchant_id', '=', 'm')
            .executeTakeFirstOrThrow();
          // A pause between the read and the write, where a lost update would happen.
          await new Promise((r) => setTimeout(r, 1));
          await trx
            .updateTable('merchant_event_sequences')
            .set({ last_seq: last_seq + 1 })
            .where('merchant_id', '=', 'm')
            .execute();
          return last_seq + 1;
        });
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 === 0 ? a : b)));
      expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      const row = await database.db
        .selectFrom('merchant_event_sequences')
        .select('last_seq')
        .where('merchant_id', '=', 'm')
        .executeTakeFirstOrThrow();
      expect(row.last_seq).toBe(20);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('read integers back as numbers, counts included', async () => {
    const row = await database.db
      .selectFrom('merchant_event_sequences')
      .select(['last_seq', (eb) => eb.fn.countAll().as('n')])
      .groupBy('last_seq')
      .executeTakeFirstOrThrow();
    expect(typeof row.last_seq).toBe('number');
    expect(Number(row.n)).toBe(1);
    const big = await sql<{ v: number }>`select ${2 ** 40} + last_seq as v from merchant_event_sequences`.execute(
      database.db,
    );
    expect(big.rows[0]?.v).toBe(2 ** 40 + 20);
  });
});

describe.skipIf(!ON_POSTGRES)('on PostgreSQL', () => {
  it('the group commit runs each unit in its own transaction: a failing unit takes no other with it', async () => {
    const g = new GroupCommit(database.db);
    const write = (subject: string) =>
      g.run((trx) =>
        trx
          .insertInto('audit_log')
          .values({
            at: AT,
            actor: 't',
            action: 'a',
            subject_type: 'x',
            subject_id: subject,
            merchant_id: null,
            details: '',
          })
          .execute(),
      );
    const results = await Promise.allSettled([
      write('g-one'),
      g.run(async (trx) => {
        await trx
          .insertInto('audit_log')
          .values({
            at: AT,
            actor: 't',
            action: 'a',
            subject_type: 'x',
            subject_id: 'g-doomed',
            merchant_id: null,
            details: '',
          })
          .execute();
        throw new Error('refused');
      }),
      write('g-three'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const subjects = (
      await database.db.selectFrom('audit_log').select('subject_id').where('subject_id', 'like', 'g-%').execute()
    ).map((r) => r.subject_id);
    expect(subjects.sort()).toEqual(['g-one', 'g-three']);
  });

  it('two processes migrating one new database at once both succeed, each migration applied once', async () => {
    const fresh = await createPostgresDatabase();
    const a = openDatabase(fresh.url);
    const b = openDatabase(fresh.url);
    try {
      const [ra, rb] = await Promise.all([migrateToLatest(a.db), migrateToLatest(b.db)]);
      const names = Object.keys(MIGRATIONS).sort();
      expect([...ra.applied, ...rb.applied].sort()).toEqual(names);
      const recorded = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(a.db);
      expect(recorded.rows.map((r) => r.name)).toEqual(names);
    } finally {
      await a.close();
      await b.close();
      await fresh.drop();
    }
  });
});
