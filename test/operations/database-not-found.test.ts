/**
 * No silent empty instance: the built program, run where there is no database, refuses with
 * database_not_found (naming the location and where it came from) and creates nothing; only the
 * commands that create a database on purpose (`migrate` here) do.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { runBuilt } from '../helpers/cli.js';
import { createPostgresDatabase, ON_POSTGRES } from '../helpers/database.js';

const listeners = { PORT: '0', ADMIN_PORT: '0', CABINET_PORT: '0', PAY_PORT: '0', TRON_NETWORK: 'devnet' };

describe.skipIf(ON_POSTGRES)('a SQLite database that is not there', () => {
  it('payout list from a folder without .env: exit 1, database_not_found naming the default location, no file created', async () => {
    const dir = tempDir();
    const r = await runBuilt(['payout', 'list'], { cwd: dir, unset: ['DATABASE_URL'] });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error (database_not_found): No database file at');
    expect(r.stderr).toContain(path.join(dir, 'paygate.db'));
    expect(r.stderr).toContain('DATABASE_URL is set neither in the environment nor in a .env file here');
    expect(readdirSync(dir)).toEqual([]);

    const json = await runBuilt(['payout', 'list', '--json'], { cwd: dir, unset: ['DATABASE_URL'] });
    expect(json.code).toBe(1);
    expect(json.json.error.code).toBe('database_not_found');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a mistyped DATABASE_URL: the resolved path, "from DATABASE_URL", and no parent folder made', async () => {
    const dir = tempDir();
    const r = await runBuilt(['merchant', 'list', '--json'], {
      cwd: dir,
      env: { DATABASE_URL: 'data/paygate.db' },
    });
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('database_not_found');
    expect(r.json.error.message).toContain(`${path.join(dir, 'data', 'paygate.db')} (from DATABASE_URL)`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('serve refuses too, before listening, and creates nothing', async () => {
    const dir = tempDir();
    const r = await runBuilt(['serve'], { cwd: dir, env: listeners, unset: ['DATABASE_URL'] });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error (database_not_found)');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an empty file (no paygate schema) is refused as well, and left as it is', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'paygate.db'), '');
    const r = await runBuilt(['payout', 'list', '--json'], { cwd: dir, unset: ['DATABASE_URL'] });
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('database_not_found');
    expect(r.json.error.message).toContain('No paygate database at');
  });

  it('migrate creates it on purpose; then payout list answers from it', async () => {
    const dir = tempDir();
    const migrated = await runBuilt(['migrate', '--json'], { cwd: dir, unset: ['DATABASE_URL'] });
    expect(migrated.code).toBe(0);
    expect(readdirSync(dir)).toContain('paygate.db');
    const list = await runBuilt(['payout', 'list', '--json'], { cwd: dir, unset: ['DATABASE_URL'] });
    expect(list.code).toBe(0);
    expect(list.json).toEqual({ data: [], next_cursor: null });
  });
});

describe.skipIf(!ON_POSTGRES)('a PostgreSQL database without paygate schema', () => {
  const made: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const drop of made) await drop();
  });

  it('payout list and serve refuse it (the URL without its password); migrate creates the schema', async () => {
    const pg = await createPostgresDatabase({ migrated: false });
    made.push(() => pg.drop());
    const dir = tempDir();
    const url = new URL(pg.url);
    url.password = 'a-secret-password';
    const env = { DATABASE_URL: url.toString() };
    const r = await runBuilt(['payout', 'list', '--json'], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('database_not_found');
    expect(r.json.error.message).toContain('(from DATABASE_URL)');
    expect(r.json.error.message).not.toContain('a-secret-password');

    const serve = await runBuilt(['serve', '--json'], { cwd: dir, env: { ...env, ...listeners } });
    expect(serve.code).toBe(1);
    expect(serve.stdout).toContain('database_not_found');

    const migrated = await runBuilt(['migrate', '--json'], { cwd: dir, env });
    expect(migrated.code).toBe(0);
    const list = await runBuilt(['payout', 'list', '--json'], { cwd: dir, env });
    expect(list.code).toBe(0);
  });

  it('a PostgreSQL database that does not exist on the server is database_not_found too', async () => {
    const pg = await createPostgresDatabase({ migrated: false });
    made.push(() => pg.drop());
    const url = new URL(pg.url);
    url.pathname = `/${url.pathname.slice(1)}_absent`;
    const r = await runBuilt(['merchant', 'list', '--json'], { cwd: tempDir(), env: { DATABASE_URL: url.toString() } });
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('database_not_found');
  });
});
