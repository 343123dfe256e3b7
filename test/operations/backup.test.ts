/**
 * `paygate backup` while the server writes, and `paygate restore` with its refusals: in use
 * (open by a process, or a live worker lease), a damaged or foreign file, a newer schema.
 */
import Sqlite from 'better-sqlite3';
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { backupDatabase, restoreDatabase } from '../../src/restore/backup.js';
import { tempDir } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { newInvoice, startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';
import { describeSqliteOnly } from '../helpers/database.js';

const count = (file: string, table: string) => {
  const db = new Sqlite(file, { readonly: true });
  try {
    return db.prepare(`select count(*) from ${table}`).pluck().get() as number;
  } finally {
    db.close();
  }
};

const refusal = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (e) {
    return e as { code: string; message: string };
  }
  throw new Error('not refused');
};

describeSqliteOnly(
  'paygate backup and restore copy a SQLite file; on PostgreSQL they refuse (test/operations/backup-postgres.test.ts)',
)('paygate backup and restore', () => {
  let t: InvoiceTestApp;
  let key: string;
  let env: Record<string, string>;
  const out = tempDir('paygate-backup-');
  const backup = path.join(out, 'one.db');

  beforeAll(async () => {
    t = await startInvoiceApp();
    key = (await t.merchant()).key;
    // A small derivation gap: the full one derives tens of thousands of addresses (restore-gap.test.ts).
    env = { DATABASE_URL: t.app.config.databaseUrl, PAYGATE_TEST_RESTORE_GAP: '20' };
    for (let i = 0; i < 5; i++)
      expect((await api(t.url, '/v1/invoices', { key, body: newInvoice() })).status).toBe(201);
  });
  afterAll(() => t?.close());

  it('backs up online while the server keeps creating invoices: consistent, private, complete up to its start', async () => {
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        const r = await api(t.url, '/v1/invoices', { key, body: newInvoice() });
        expect(r.status).toBe(201);
        written++;
      }
    })();
    const before = count(t.app.config.databasePath!, 'invoices');
    const r = await runCli(['backup', backup, '--json'], env);
    writing = false;
    await writer;
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ file: backup, integrity: 'ok', schema: expect.stringMatching(/^\d{4}_/) });
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(existsSync(`${backup}.partial`)).toBe(false);
    expect(count(backup, 'invoices')).toBeGreaterThanOrEqual(before);
    expect(written).toBeGreaterThan(0);
    // One self-contained file, intact.
    const db = new Sqlite(backup, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    db.close();
  });

  it('never overwrites an existing file (progress: test/operations/progress.test.ts)', async () => {
    const second = path.join(out, 'two.db');
    const r = await runCli(['backup', second], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/integrity\s+ok/);

    writeFileSync(path.join(out, 'taken.db'), 'keep me');
    const e = await refusal(backupDatabase(t.app.config.databasePath!, path.join(out, 'taken.db')));
    expect(e.code).toBe('invalid_argument');
    expect(e.message).toMatch(/already exists/);
    expect(readFileSync(path.join(out, 'taken.db'), 'utf8')).toBe('keep me');
  });

  it('refuses to restore over a database a process has open, and changes nothing', async () => {
    const r = await runCli(['restore', backup, '--json'], env);
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('invalid_state');
    expect(r.json.error.message).toMatch(/in use/);
    expect((await api(t.url, '/v1/invoices', { key, body: newInvoice() })).status).toBe(201);
  });

  it('refuses a damaged file, a file that is not a paygate database, and a backup from a newer version', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'paygate.db');
    const damaged = path.join(dir, 'damaged.db');
    copyFileSync(backup, damaged);
    const bytes = readFileSync(damaged);
    bytes.fill(0xff, 4096 * 2, 4096 * 4); // two pages of b-tree garbage
    writeFileSync(damaged, bytes);
    expect((await refusal(restoreDatabase(target, damaged, new Date()))).message).toMatch(
      /not an intact paygate backup/,
    );

    const foreign = path.join(dir, 'foreign.db');
    const f = new Sqlite(foreign);
    f.exec('create table notes (text)');
    f.close();
    expect((await refusal(restoreDatabase(target, foreign, new Date()))).message).toMatch(/not a paygate database/);

    const newer = path.join(dir, 'newer.db');
    copyFileSync(backup, newer);
    const n = new Sqlite(newer);
    n.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run(
      '9999_future',
      new Date().toISOString(),
    );
    n.close();
    expect((await refusal(restoreDatabase(target, newer, new Date()))).message).toMatch(
      /newer paygate \(migration 9999_future\)/,
    );
    expect(existsSync(target)).toBe(false);
  });

  it('refuses while a worker lease is live even with no process attached', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'paygate.db');
    copyFileSync(backup, target);
    const db = new Sqlite(target);
    const until = new Date(Date.now() + 60_000).toISOString();
    db.prepare(
      'insert or replace into worker_lease (id, holder, token, acquired_at, renewed_at, expires_at) values (1, ?, 1, ?, ?, ?)',
    ).run('host:123:abc', until, until, until);
    db.close();
    const e = await refusal(restoreDatabase(target, backup, new Date()));
    expect(e.code).toBe('invalid_state');
    expect(e.message).toMatch(/worker lease is held by host:123:abc/);
    // After the lease lapses the same restore goes ahead.
    await restoreDatabase(target, backup, new Date(Date.now() + 120_000), 'restore', { gap: 20 });
  });

  it('restores once the server is stopped: the data of the backup, the old database kept aside, ready to serve', async () => {
    const file = t.app.config.databasePath!;
    const inBackup = count(backup, 'invoices');
    await t.app.stop();
    expect(count(file, 'invoices')).toBeGreaterThan(inBackup);
    const r = await runCli(['restore', backup, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.database).toBe(file);
    expect(count(file, 'invoices')).toBe(inBackup);
    expect(count(r.json.previous, 'invoices')).toBeGreaterThan(inBackup);
    const restored = new Sqlite(file);
    expect(restored.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(restored.pragma('integrity_check', { simple: true })).toBe('ok');
    restored.close();
    // The restored database serves: the same CLI sees the merchants of the backup.
    const merchants = await runCli(['merchant', 'list', '--json'], env);
    expect(merchants.code).toBe(0);
    expect(merchants.json.data).toHaveLength(1);
  });
});
