/**
 * `paygate backup` of a database that another connection writes between every step of the copy,
 * as a busy `serve` does (a group commit every few milliseconds, a copy step every few).
 * SQLite starts the copy over after each such write. The backup must notice that and finish
 * with a consistent snapshot. It must not copy the first 1024 pages again and again forever.
 */
import Sqlite from 'better-sqlite3';
import path from 'node:path';
import { expect, it } from 'vitest';
import { backupDatabase } from '../../src/restore/backup.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

describeSqliteOnly("SQLite's online backup API")('paygate backup under constant writes', () => {
  it('finishes when a write lands between every two steps, with the state of one moment', async () => {
    const dir = tempDir('paygate-backup-busy-');
    const file = path.join(dir, 'paygate.db');
    const setup = new Sqlite(file);
    setup.pragma('journal_mode = WAL');
    setup.exec(`create table kysely_migration (name text primary key, timestamp text);
      insert into kysely_migration values ('0001_foundation', '2026-01-01T00:00:00.000Z');
      create table filler (b blob);
      create table counter (id integer primary key, n integer not null);
      insert into counter values (1, 0), (2, 0);`);
    const fill = setup.prepare('insert into filler values (randomblob(3000))');
    // ~3,000 pages: three steps of 1,024 pages.
    setup.transaction(() => {
      for (let i = 0; i < 3000; i++) fill.run();
    })();
    setup.close();

    // The server: another connection that commits between two steps (both counters move together,
    // so a copy that mixes two moments shows them apart).
    const server = new Sqlite(file);
    server.pragma('busy_timeout = 1000');
    const bump = server.prepare('update counter set n = n + 1');
    let steps = 0;
    const backup = path.join(dir, 'backup.db');
    try {
      await backupDatabase(file, backup, ({ remainingPages }) => {
        steps++;
        if (steps > 200)
          throw new Error(`the backup started over ${steps} times and never finished (${remainingPages} pages left)`);
        bump.run();
      });
    } finally {
      server.close();
    }
    const copy = new Sqlite(backup, { readonly: true });
    try {
      const [a, b] = copy.prepare('select n from counter order by id').pluck().all() as number[];
      expect(a).toBe(b);
      expect(copy.prepare('select count(*) from filler').pluck().get()).toBe(3000);
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      copy.close();
    }
    expect(steps).toBeLessThan(10);
  });
});
