/**
 * The durability settings, read back from the live connections the driver keeps (the writer and
 * the read connection), opened the way `serve` opens them: WAL, synchronous=FULL (2), foreign keys
 * on, the short busy_timeout of the asynchronous busy wait. What the code asked for is not enough:
 * a PRAGMA that SQLite ignores (a misspelling, a journal mode the file system refuses) fails
 * silently, so the values are asked back from SQLite.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import {
  BUSY_TIMEOUT_MS,
  openSqlite,
  WAL_SIZE_LIMIT,
  writeTx,
  WRITER_CACHE_KB,
  type SqliteDatabase,
} from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

const DURABLE = { journal_mode: 'wal', synchronous: 2, foreign_keys: 1, busy_timeout: BUSY_TIMEOUT_MS };

describeSqliteOnly("SQLite's PRAGMAs and WAL file")('durability settings', () => {
  let database: SqliteDatabase;
  afterEach(() => database?.close());

  it('are WAL, synchronous=FULL, foreign keys on and the short busy_timeout on both live connections', async () => {
    const file = path.join(tempDir(), 'settings.db');
    // As buildApp (serve) and the CLI open it.
    database = openSqlite(file);
    await migrateToLatest(database.db);

    expect(database.settings()).toEqual({ writer: DURABLE, reader: DURABLE });
    // The writer asked directly, and a read-only statement outside a transaction (the reader's path).
    expect(database.sqlite.pragma('synchronous', { simple: true })).toBe(2);
    expect(database.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    const viaReader = await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db);
    expect(viaReader.rows).toEqual([{ synchronous: 2 }]);
    const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(database.db);
    expect(fk.rows).toEqual([{ foreign_keys: 1 }]);
    // The group commit's per-invoice savepoints journal in memory, not in temporary files (a
    // rollback to a savepoint needs them; recovery after a crash does not).
    expect(database.sqlite.pragma('temp_store', { simple: true })).toBe(2);
    // Migrations ran with a larger page cache; the server's writer is back to its own 8 MB.
    expect(database.sqlite.pragma('cache_size', { simple: true })).toBe(-WRITER_CACHE_KB);

    // What the settings mean, as a user would notice: a write goes to the WAL, and a row that
    // names a merchant that does not exist is refused.
    expect(existsSync(`${file}-wal`)).toBe(true);
    await expect(
      database.db
        .insertInto('api_keys')
        .values({
          key_id: 'k'.repeat(16),
          merchant_id: 'mer_nobody',
          secret_hash: 'x',
          created_at: new Date().toISOString(),
          revoked_at: null,
        })
        .execute(),
    ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
  });

  it("copy the WAL into the database file with SQLite's automatic checkpoints, so the WAL stays small", async () => {
    const file = path.join(tempDir(), 'wal.db');
    database = openSqlite(file);
    await migrateToLatest(database.db);
    expect(database.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(database.sqlite.pragma('journal_size_limit', { simple: true })).toBe(WAL_SIZE_LIMIT);
    const before = statSync(file).size;
    // About 4,000 pages of 4 KiB, committed in 40 transactions: four times the checkpoint's point.
    const details = 'x'.repeat(4_000);
    for (let t = 0; t < 40; t++) {
      await writeTx(database.db, async (trx) => {
        for (let i = 0; i < 100; i++) {
          await trx
            .insertInto('audit_log')
            .values({
              actor: 't',
              action: 'fill',
              subject_type: 't',
              subject_id: `${t}-${i}`,
              details,
              at: new Date().toISOString(),
            })
            .execute();
        }
      });
    }
    // Most of the rows are in the database file already, and the WAL was started over.
    expect(statSync(file).size - before).toBeGreaterThan(10 * 1024 * 1024);
    expect(statSync(`${file}-wal`).size).toBeLessThan(8 * 1024 * 1024);
  });
});
