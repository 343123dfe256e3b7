/**
 * On PostgreSQL, backups are the server's own (pg_dump, base backups with WAL archiving):
 * `paygate backup` and `paygate restore` copy SQLite files only, so with a postgres:// DATABASE_URL
 * they refuse with what to use instead, and touch nothing.
 */
import path from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { createPostgresDatabase, type TestPostgres } from '../helpers/database.js';

describe('paygate backup and restore on PostgreSQL', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await createPostgresDatabase();
  });
  afterAll(() => server?.drop());

  it.each(['backup', 'restore'])('%s refuses and points to the server tools', async (command) => {
    const file = path.join(tempDir(), 'copy.db');
    if (command === 'restore') writeFileSync(file, 'not a database');
    const r = await runCli([command, file, '--json'], { DATABASE_URL: server.url, TRON_NETWORK: 'devnet' });
    expect(r.code).toBe(1);
    expect(r.json?.error?.code, r.stdout).toBe('invalid_argument');
    expect(r.json.error.message).toMatch(/PostgreSQL database: use pg_dump/);
    if (command === 'backup') expect(existsSync(file)).toBe(false);
  });
});
