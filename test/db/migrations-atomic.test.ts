/**
 * A process killed while it applies migrations (OOM killer, power cut, `kill -9` of a `paygate
 * migrate` or of a `serve` starting after an upgrade) must leave a database that the next
 * `paygate migrate` finishes. A half-applied migration (some of its tables created, the
 * migration not recorded) stops every later run with "table … already exists", and neither
 * `serve` nor any command can start again.
 */
import Sqlite from 'better-sqlite3';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { DEFAULT_BUSY, openDatabase } from '../../src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MIGRATE = `
const { openDatabase } = await import(${JSON.stringify(path.join(ROOT, 'src/db/database.ts'))});
const { migrateToLatest } = await import(${JSON.stringify(path.join(ROOT, 'src/db/migrate.ts'))});
const database = openDatabase(process.env.DB);
await migrateToLatest(database.db);
await database.close();
`;

function schemaOf(file: string): string[] {
  const db = new Sqlite(file, { readonly: true });
  try {
    return db
      .prepare(
        "select type || ' ' || name || ' ' || coalesce(sql, '') from sqlite_master where name not like 'sqlite_%' order by type, name",
      )
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
}

describeSqliteOnly("SQLite's write lock and file; PostgreSQL's run is in test/db/engines.test.ts")(
  'migrations interrupted or run twice',
  () => {
    it('leaves a database the next run migrates to the same schema as an uninterrupted run', async () => {
      const dir = tempDir('paygate-migrate-kill-');
      const reference = path.join(dir, 'reference.db');
      const clean = openDatabase(reference);
      await migrateToLatest(clean.db);
      await clean.close();

      const file = path.join(dir, 'paygate.db');
      // The process is killed as soon as the first table of 0032_sweeper shows: 0032 creates 5
      // tables and 9 indexes, each statement committed (and fsynced) on its own.
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', MIGRATE], {
        cwd: ROOT,
        env: { ...process.env, DB: file },
        stdio: 'ignore',
      });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      let ended = false;
      void exited.then(() => (ended = true));
      let killed = false;
      while (!ended && !killed) {
        await new Promise((r) => setTimeout(r, 1));
        let seen: unknown;
        try {
          const db = new Sqlite(file, { readonly: true, fileMustExist: true });
          try {
            seen = db.prepare("select 1 from sqlite_master where name = 'sweeps'").get();
          } finally {
            db.close();
          }
        } catch {
          continue; // not created yet, or busy
        }
        if (seen) killed = child.kill('SIGKILL');
      }
      await exited;

      // The next run (paygate migrate, or serve at its start) finishes the job.
      const next = openDatabase(file);
      try {
        const report = await migrateToLatest(next.db);
        expect(report.current).toBe(Object.keys(MIGRATIONS).sort().at(-1));
      } finally {
        await next.close();
      }
      expect(schemaOf(file).filter((s) => !s.includes('kysely_migration_lock'))).toEqual(
        schemaOf(reference).filter((s) => !s.includes('kysely_migration_lock')),
      );
    });

    it('two processes migrating the same database at once both succeed, and each migration is applied once', async () => {
      const dir = tempDir('paygate-migrate-twice-');
      const reference = path.join(dir, 'reference.db');
      const clean = openDatabase(reference);
      await migrateToLatest(clean.db);
      await clean.close();
      const file = path.join(dir, 'paygate.db');
      // Two serves started together after an upgrade, or `paygate migrate` beside a starting serve.
      const run = () =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', MIGRATE], {
            cwd: ROOT,
            env: { ...process.env, DB: file },
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          child.stderr!.on('data', (d) => (stderr += String(d)));
          child.once('exit', (code) => resolve({ code, stderr }));
        });
      const [a, b] = await Promise.all([run(), run()]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      expect(schemaOf(file).filter((s) => !s.includes('kysely_migration_lock'))).toEqual(
        schemaOf(reference).filter((s) => !s.includes('kysely_migration_lock')),
      );
    });

    it('a process starting while another one migrates for longer than the busy timeout waits for it instead of failing', async () => {
      const dir = tempDir('paygate-migrate-long-');
      const file = path.join(dir, 'paygate.db');
      const setup = openDatabase(file);
      await migrateToLatest(setup.db);
      await setup.close();
      // Another process in the middle of a long upgrade (0040 alone took 23 s on 1.5 million
      // invoices): it holds the write lock past the busy timeout every statement waits for.
      const holdMs = DEFAULT_BUSY.deadlineMs + 1_500;
      const holder = spawn(
        process.execPath,
        [
          '-e',
          `const D = require('better-sqlite3'); const db = new D(process.env.DB); db.exec('begin immediate'); process.stdout.write('locked'); setTimeout(() => { db.exec('commit'); db.close(); }, ${holdMs});`,
        ],
        { cwd: ROOT, env: { ...process.env, DB: file }, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = new Promise<void>((resolve) => holder.once('exit', () => resolve()));
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
      const second = openDatabase(file);
      try {
        // A serve starting meanwhile (two serves started together after an upgrade).
        const report = await migrateToLatest(second.db);
        expect(report).toEqual({ applied: [], current: Object.keys(MIGRATIONS).sort().at(-1) });
      } finally {
        await second.close();
        await exited;
      }
    });
  },
);
