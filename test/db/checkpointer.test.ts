/** The server's WAL is checkpointed by the worker thread, not by request commits. */
import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordAudit } from '../../src/audit/store.js';
import { systemClock } from '../../src/clock.js';
import { startCheckpointer } from '../../src/db/checkpointer.js';
import { openDatabase, writeTx } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/app.js';
import { addressSearch } from '../../src/addresses/store.js';

describe('checkpointer', () => {
  it('copies the WAL into the database file while the writer never checkpoints itself', async () => {
    const file = path.join(tempDir(), 'wal.db');
    const database = openDatabase(file, { autoCheckpoint: false });
    await migrateToLatest(database.db);
    await writeTx(database.db, async (trx) => {
      for (let i = 0; i < 2000; i++) await recordAudit(trx, systemClock, { actor: 't', action: 'a', subjectType: 's', subjectId: String(i), details: { pad: 'x'.repeat(200) } });
    });
    const before = statSync(file).size;
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(before);
    const checkpointer = await startCheckpointer(file, 10);
    try {
      for (let i = 0; i < 500 && statSync(file).size === before; i++) await new Promise((r) => setTimeout(r, 10));
      expect(statSync(file).size).toBeGreaterThan(before);
    } finally {
      await checkpointer.stop();
      await database.close();
    }
  });

  it('replaces a worker that died, says so, and checkpoints again', async () => {
    const file = path.join(tempDir(), 'respawn.db');
    const database = openDatabase(file, { autoCheckpoint: false });
    await migrateToLatest(database.db);
    const crashes: string[] = [];
    const checkpointer = await startCheckpointer(file, 10, undefined, { onCrash: (reason) => crashes.push(reason), respawnMs: 20 });
    const writeWal = () =>
      writeTx(database.db, async (trx) => {
        for (let i = 0; i < 2000; i++) await recordAudit(trx, systemClock, { actor: 't', action: 'a', subjectType: 's', subjectId: String(i), details: { pad: 'x'.repeat(200) } });
      });
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    };
    try {
      const first = checkpointer.worker;
      await first.terminate();
      await until(() => crashes.length > 0);
      expect(crashes).toEqual([expect.stringMatching(/^checkpoint worker exited with code 1/)]);
      // Written after the death: only a new worker can copy it into the database file.
      await writeWal();
      const before = statSync(file).size;
      await until(() => statSync(file).size > before);
      expect(checkpointer.worker).not.toBe(first);
      expect(statSync(file).size).toBeGreaterThan(before);
      expect(await checkpointer.readAhead(addressSearch.sql, [addressSearch.params({ address: 'T-nowhere' })])).toBe(1);
    } finally {
      await checkpointer.stop();
      await database.close();
    }
    expect(crashes).toHaveLength(1);
  });

  it('lets the WAL start over under a steady stream of writes and reads, so it stays bounded', async () => {
    const file = path.join(tempDir(), 'restart.db');
    const database = openDatabase(file, { autoCheckpoint: false });
    await migrateToLatest(database.db);
    // Past 1 MiB; tries every 5 ms, as the test's writes leave only microseconds between two
    // transactions (serve's batches leave far more).
    const checkpointer = await startCheckpointer(file, 10, { frames: 256, tryMs: 5 });
    let written = 0;
    let largest = 0;
    try {
      // ~40 MiB of WAL frames in all, each commit followed by a read on the read connection.
      while (written < 10_000) {
        await writeTx(database.db, async (trx) => {
          for (let i = 0; i < 4; i++) await recordAudit(trx, systemClock, { actor: 't', action: 'a', subjectType: 's', subjectId: String(written), details: { pad: 'x'.repeat(3000) } });
        });
        written += 4;
        await database.db.selectFrom('audit_log').select('id').where('subject_id', '=', String(written)).execute();
        largest = Math.max(largest, statSync(`${file}-wal`).size);
      }
    } finally {
      await checkpointer.stop();
      await database.close();
    }
    // Without a restart the WAL holds every frame ever written (over 40 MiB here).
    expect(largest).toBeLessThan(16 * 1024 * 1024);
  });

  it('reads ahead with read-only queries only, and answers how many it ran', async () => {
    const file = path.join(tempDir(), 'read-ahead.db');
    const database = openDatabase(file, { autoCheckpoint: false });
    await migrateToLatest(database.db);
    const checkpointer = await startCheckpointer(file, 1000);
    try {
      // The server's own read-ahead: where an invoice creation will insert its address.
      const rows = ['TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', 'TKVSaJQDWeKFSEXmA44pjxduGTxyXa6B52'].map((address) => addressSearch.params({ address }));
      await expect(checkpointer.readAhead(addressSearch.sql, rows)).resolves.toBe(2);
      // A statement that writes is never run: the worker is no second writer.
      await recordAudit(database.db, systemClock, { actor: 't', action: 'a', subjectType: 's', subjectId: '1', details: {} });
      // RETURNING makes it a statement that returns rows: only the read-only check keeps it from running.
      await expect(checkpointer.readAhead('DELETE FROM audit_log RETURNING id', [[]])).resolves.toBe(0);
      await expect(checkpointer.readAhead('SELECT * FROM no_such_table', [[]])).resolves.toBe(0);
      expect(await database.db.selectFrom('audit_log').select('id').execute()).toHaveLength(1);
    } finally {
      await checkpointer.stop();
      await database.close();
    }
    // Once stopped it answers 0 at once.
    await expect(checkpointer.readAhead(addressSearch.sql, [addressSearch.params({ address: 'x' })])).resolves.toBe(0);
  });

  it('keeps at most two read-aheads in flight, and a stop with one pending still ends with its last checkpoint', async () => {
    const file = path.join(tempDir(), 'read-ahead-stop.db');
    const database = openDatabase(file, { autoCheckpoint: false });
    await migrateToLatest(database.db);
    // No checkpoint on a timer during the test: only the one stop() runs.
    const checkpointer = await startCheckpointer(file, 60_000);
    const rows = Array.from({ length: 50 }, (_, i) => addressSearch.params({ address: `T${i}` }));
    const answers = [checkpointer.readAhead(addressSearch.sql, rows), checkpointer.readAhead(addressSearch.sql, rows), checkpointer.readAhead(addressSearch.sql, rows)];
    await expect(answers[2]).resolves.toBe(0); // dropped at once: two were in flight
    await expect(Promise.all(answers.slice(0, 2))).resolves.toEqual([50, 50]);

    await writeTx(database.db, async (trx) => {
      for (let i = 0; i < 500; i++) await recordAudit(trx, systemClock, { actor: 't', action: 'a', subjectType: 's', subjectId: String(i), details: { pad: 'x'.repeat(200) } });
    });
    const before = statSync(file).size;
    const pending = checkpointer.readAhead(addressSearch.sql, rows);
    await checkpointer.stop(); // must wait for the worker's own end, not the read-ahead's answer
    expect(await pending).toBeGreaterThanOrEqual(0);
    expect(statSync(file).size).toBeGreaterThan(before); // the stop's last PASSIVE checkpoint ran
    await database.close();
  });
});
