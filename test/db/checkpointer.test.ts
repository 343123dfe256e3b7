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

  it('ends with a last checkpoint when stopped', async () => {
    const file = path.join(tempDir(), 'stop.db');
    const database = openDatabase(file, { autoCheckpoint: false });
    await migrateToLatest(database.db);
    // No checkpoint on a timer during the test: only the one stop() runs.
    const checkpointer = await startCheckpointer(file, 60_000);
    await writeTx(database.db, async (trx) => {
      for (let i = 0; i < 500; i++) await recordAudit(trx, systemClock, { actor: 't', action: 'a', subjectType: 's', subjectId: String(i), details: { pad: 'x'.repeat(200) } });
    });
    const before = statSync(file).size;
    await checkpointer.stop();
    expect(statSync(file).size).toBeGreaterThan(before); // the stop's last PASSIVE checkpoint ran
    await database.close();
  });
});
