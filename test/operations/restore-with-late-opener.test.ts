/**
 * `paygate restore` checks that nothing uses the database, then copies the backup, then swaps
 * the files. A large backup takes a while to copy. A process that opens the database during the
 * copy (a `serve` started by hand or by a timer, a script running a command) must not end up
 * writing where nobody will ever read: every write it was told is committed must be in the
 * restored database or in the database kept aside as `<db>.before-restore-<time>`.
 */
import Sqlite from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { copyFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { restoreDatabase } from '../../src/restore/backup.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * A process that keeps the database open from the moment the restore starts copying, like a
 * `serve` would: it commits one row as soon as it sees the restore's partial file, and another
 * when told to. Each answer is `ok <tag>` (committed) or `refused <tag> <code>`.
 */
const OPENER = `
const Sqlite = require(process.env.BETTER_SQLITE3);
const fs = require('node:fs');
const file = process.env.DB;
let db = null;
const write = (tag) => {
  try {
    db ??= new Sqlite(file, { timeout: 50 });
    db.prepare('insert into probe (tag) values (?)').run(tag);
    console.log('ok ' + tag);
  } catch (e) {
    console.log('refused ' + tag + ' ' + (e.code || e.message));
  }
};
const poll = setInterval(() => {
  if (!fs.existsSync(file + '.restore-partial')) return;
  clearInterval(poll);
  write('during-restore');
}, 1);
console.log('watching');
require('node:readline').createInterface({ input: process.stdin }).on('line', (tag) => write(tag));
`;

describeSqliteOnly('paygate restore replaces a SQLite file')(
  'paygate restore while another process opens the database',
  () => {
    it('loses no committed write of a process that opened the database during the copy', async () => {
      const dir = tempDir('paygate-restore-race-');
      const file = path.join(dir, 'paygate.db');
      const setup = openDatabase(file);
      await migrateToLatest(setup.db);
      await setup.close();
      // A large backup of this database: its copy takes long enough for a process to come in.
      const backup = path.join(dir, 'backup.db');
      copyFileSync(file, backup);
      const big = new Sqlite(backup);
      big.pragma('journal_mode = DELETE');
      big.exec('create table filler (b blob)');
      const fill = big.prepare('insert into filler values (randomblob(3000))');
      big.transaction(() => {
        for (let i = 0; i < 40_000; i++) fill.run();
      })();
      big.close();
      const live = new Sqlite(file);
      live.exec('create table probe (tag text not null)');
      live.close();

      const child = spawn(process.execPath, ['-e', OPENER], {
        env: { ...process.env, DB: file, BETTER_SQLITE3 },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const answers: string[] = [];
      const waiting: Array<() => void> = [];
      createInterface({ input: child.stdout! }).on('line', (line) => {
        answers.push(line);
        waiting.splice(0).forEach((w) => w());
      });
      const answered = async (n: number) => {
        while (answers.length < n) await new Promise<void>((r) => waiting.push(r));
      };
      try {
        await answered(1); // watching
        const result = await restoreDatabase(file, backup, new Date());
        await answered(2); // its write during the copy
        child.stdin!.write('after-restore\n');
        await answered(3);

        const committed = answers.filter((a) => a.startsWith('ok ')).map((a) => a.slice(3));
        const found = (f: string) => {
          const db = new Sqlite(f, { readonly: true });
          try {
            const has = db.prepare("select 1 from sqlite_master where name = 'probe'").get();
            return has ? (db.prepare('select tag from probe').pluck().all() as string[]) : [];
          } finally {
            db.close();
          }
        };
        const kept = [...found(file), ...(result.previous ? found(result.previous) : [])];
        for (const tag of committed)
          expect(kept, `${tag} was committed (${answers.join('; ')}); files: ${readdirSync(dir).join(', ')}`).toContain(
            tag,
          );
      } finally {
        child.kill('SIGKILL');
      }
    });
  },
);
