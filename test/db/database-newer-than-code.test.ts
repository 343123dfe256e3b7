/**
 * A database migrated by a newer paygate, opened by this one (a rollback of the code without a
 * restore of the database): every command refuses it with a message that says what happened and
 * what to do, and changes nothing. `restore` already refuses such a backup; the live database
 * must be refused the same way, not used (routine commands) or called "corrupted" (serve, migrate).
 */
import { sql } from 'kysely';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { testDatabaseUrl } from '../helpers/database.js';

const NEWER = /newer paygate \(migration 9999_future\)/;

describe('a database newer than the code', () => {
  const env = {
    DATABASE_URL: '',
    TRON_NETWORK: 'devnet',
    LOG_LEVEL: 'silent',
    PORT: '0',
    ADMIN_PORT: '0',
    CABINET_PORT: '0',
    PAY_PORT: '0',
  };
  let drop = async () => {};
  const merchants = async () => {
    const db = openDatabase(env.DATABASE_URL);
    try {
      return Number(
        (
          await db.db
            .selectFrom('merchants')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    } finally {
      await db.close();
    }
  };

  beforeAll(async () => {
    ({ url: env.DATABASE_URL, drop } = await testDatabaseUrl(path.join(tempDir('paygate-newer-'), 'paygate.db')));
    const setup = openDatabase(env.DATABASE_URL);
    await migrateToLatest(setup.db);
    // What the next release's migration leaves behind.
    await sql`insert into kysely_migration (name, timestamp) values (${'9999_future'}, ${new Date().toISOString()})`.execute(
      setup.db,
    );
    await setup.close();
  });
  afterAll(() => drop());

  it('a routine command refuses it instead of writing to a schema it does not know', async () => {
    const r = await runCli(['merchant', 'create', '--name', 'Shop', '--json'], env);
    expect(r.json?.error?.code, r.stdout).toBe('invalid_state');
    expect(r.json.error.message).toMatch(NEWER);
    expect(r.code).toBe(1);
    expect(await merchants()).toBe(0);
  });

  it('migrate refuses it as newer, not as "corrupted migrations"', async () => {
    const r = await runCli(['migrate', '--json'], env);
    expect(r.json?.error?.code, r.stdout).toBe('invalid_state');
    expect(r.json.error.message).toMatch(NEWER);
    expect(r.code).toBe(1);
  });

  it('serve refuses to start on it with the same message', async () => {
    const err = await buildApp(parseConfig(env), { workers: false, admin: false }).then(
      async (app) => {
        await app.stop();
        return null;
      },
      (e: Error & { code?: string }) => e,
    );
    expect(err?.code).toBe('invalid_state');
    expect(err?.message).toMatch(NEWER);
  });
});
