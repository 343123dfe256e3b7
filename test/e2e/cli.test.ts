/**
 * The operator path a newcomer follows: CLI commands (in process with oclif's run, each opening the
 * database as a CLI process does; the revocation as a real child process) against the same database
 * (a SQLite file, or a PostgreSQL database) that a running server uses, then the key over HTTP.
 */
import path from 'node:path';
import { existsSync, rmSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { listAudit } from '../../src/audit/store.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { tempDir } from '../helpers/app.js';
import { testDatabaseUrl, withDatabase } from '../helpers/database.js';
import { probeRoutes } from '../helpers/probe-routes.js';

const body = { order_id: 'o-1', asset: 'USDT_TRON', amount: '10', expires_in: 600 };
let dir: string;
let env: Record<string, string>;
let app: App;
let url: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  dir = tempDir();
  const database = await testDatabaseUrl(path.join(dir, 'paygate.db'));
  drop = database.drop;
  env = {
    DATABASE_URL: database.url,
    TRON_NETWORK: 'devnet',
    WALLET_KEYSTORE: path.join(dir, 'ks.json'),
  };
  const migrated = await runCli(['migrate', '--json'], env);
  expect(migrated.code).toBe(0);
  expect(migrated.json.current).toMatch(/^0001_foundation|^\d{4}_/);
  // The server runs while the CLI writes to the same file from other processes.
  app = await buildApp(
    parseConfig({ ...env, PORT: '0', ADMIN_PORT: '0', CABINET_PORT: '0', PAY_PORT: '0', LOG_LEVEL: 'silent' }),
    {
      extraRoutes: probeRoutes,
    },
  );
  url = await app.start();
});
afterAll(async () => {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
  await drop();
});

describe('merchants and keys through the CLI', () => {
  it('creates, approves, issues a key that works over HTTP, and revokes it', async () => {
    const created = await runCli(
      [
        'merchant',
        'create',
        '--name',
        'Coffee',
        '--address-mode',
        'per_user',
        '--site-url',
        'https://coffee.example',
        '--json',
      ],
      env,
    );
    expect(created.code).toBe(0);
    const id = created.json.merchant_id as string;
    expect(created.json).toMatchObject({
      name: 'Coffee',
      address_mode: 'per_user',
      approval: 'pending',
      enabled: true,
      site_url: 'https://coffee.example',
    });

    const approved = await runCli(['merchant', 'approve', id, '--json'], env);
    expect(approved.json.approval).toBe('approved');

    const issued = await runCli(['key', 'issue', id, '--json'], env);
    expect(issued.code).toBe(0);
    const key = issued.json.api_key as string;
    expect(key).toMatch(/^sk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(key.slice(3, 19)).toBe(issued.json.key_id);
    // Never stored in clear.
    const stored = (await app.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_id', '=', issued.json.key_id as string)
      .executeTakeFirstOrThrow()) as unknown as Record<string, string>;
    expect(JSON.stringify(stored)).not.toContain(key.slice(20));
    // Production parameters (tests elsewhere issue cheap keys; the verifier reads them from the hash).
    expect(stored.secret_hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);

    const ok = await api(url, '/v1/probe', { key, body });
    expect(ok.status).toBe(200);
    expect(ok.body.merchant_id).toBe(id);

    const listed = await runCli(['key', 'list', id, '--json'], env);
    expect(listed.json.data).toEqual([expect.objectContaining({ key_id: issued.json.key_id, status: 'active' })]);
    expect(listed.stdout).not.toContain(key.slice(20));

    const disabled = await runCli(['merchant', 'disable', id, '--json'], env);
    expect(disabled.json.enabled).toBe(false);
    // The CLI writes through its own connection: serve reads the merchant on every request.
    expect((await api(url, '/v1/probe', { key, body })).body.error.code).toBe('merchant_disabled');
    await runCli(['merchant', 'enable', id], env);

    const revoked = await runCliProcess(['key', 'revoke', issued.json.key_id, '--json'], env);
    expect(revoked.json.status).toBe('revoked');
    // Revoked from another process: refused on the next request.
    expect((await api(url, '/v1/probe', { key, body })).status).toBe(401);

    const shown = await runCli(['merchant', 'show', id, '--json'], env);
    expect(shown.json.merchant_id).toBe(id);
    const audit = await listAudit(app.services.db, 'merchant', id);
    expect(audit.map((a) => a.action)).toEqual([
      'merchant.create',
      'merchant.approve',
      'merchant.disable',
      'merchant.enable',
    ]);
    expect(audit[0]?.actor).toMatch(/^cli:/);
  });

  it('refuses with the error shape and a non-zero exit', async () => {
    const missing = await runCli(['merchant', 'show', '00000000-0000-4000-8000-000000000000', '--json'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.json).toEqual({ error: { code: 'merchant_not_found', message: expect.any(String) } });
    const noKey = await runCli(['key', 'revoke', 'ffffffffffffffff', '--json'], env);
    expect(noKey.json.error.code).toBe('api_key_not_found');
    const badFlag = await runCli(['merchant', 'create', '--json'], env);
    expect(badFlag.code).not.toBe(0);
    expect(badFlag.json.error.code).toBe('invalid_argument');
    const unknown = await runCli(['merchnat', 'list', '--json'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.json.error.code).toBe('invalid_argument');
    const missingArg = await runCli(['key', 'issue', '--json'], env);
    expect(missingArg.json.error.message).toMatch(/^Missing 1 required arg: merchant/);
    const human = await runCli(['merchant', 'show', 'nope'], env);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('merchant_not_found');
  });

  it('stops at start-up on an invalid variable, naming it', async () => {
    const r = await runCli(['merchant', 'list', '--json'], { ...env, API_RATE_LIMIT_PER_IP: 'lots' });
    expect(r.code).not.toBe(0);
    expect(r.json.error.message).toContain('API_RATE_LIMIT_PER_IP');
  });
});

describe('ledger corrections through the CLI', () => {
  it('--reference makes a correction safe to repeat', async () => {
    const id = (await runCli(['merchant', 'create', '--name', 'Ledger', '--json'], env)).json.merchant_id as string;
    const credit = [
      'ledger',
      'credit',
      id,
      '--asset',
      'USDT_TRON',
      '--amount',
      '25',
      '--memo',
      'ticket 4411',
      '--reference',
      'T-4411',
      '--json',
    ];
    const first = await runCli(credit, env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.json).toMatchObject({ reference: 'T-4411', replayed: false, balance: { available: '25' } });
    const again = await runCli(credit, env);
    expect(again.json).toMatchObject({ entry_id: first.json.entry_id, replayed: true, balance: { available: '25' } });
    const other = await runCli(
      credit.map((a) => (a === '25' ? '26' : a)),
      env,
    );
    expect(other.code).toBe(1);
    expect(other.json.error).toMatchObject({ code: 'reference_conflict', message: expect.stringContaining('T-4411') });
    expect((await runCli(['merchant', 'balance', id, '--json'], env)).json.balances).toEqual([
      { asset: 'USDT_TRON', available: '25', reserved: '0', total: '25' },
    ]);
  });
});

describe('schema upgrades', () => {
  it('routine commands refuse a database without its schema and one that needs an upgrade; migrate creates it', async () => {
    const d = tempDir();
    const fresh = await testDatabaseUrl(path.join(d, 'old.db'), { empty: true });
    const e = { DATABASE_URL: fresh.url, TRON_NETWORK: 'devnet' };
    const missing = await runCli(['merchant', 'list', '--json'], e);
    expect(missing.code).toBe(1);
    expect(missing.json.error.code).toBe('database_not_found');
    expect((await runCli(['migrate', '--json'], e)).code).toBe(0);
    expect((await runCli(['merchant', 'list', '--json'], e)).code).toBe(0);
    // Simulate code newer than the database: forget the last migration.
    await withDatabase(e.DATABASE_URL, (db) =>
      sql`delete from kysely_migration where name = (select max(name) from kysely_migration)`.execute(db),
    );
    const refused = await runCli(['merchant', 'list', '--json'], e);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatchObject({
      code: 'invalid_state',
      message: expect.stringContaining('paygate migrate'),
    });
  });

  it('migrate and init refuse while a worker lease is live, and change nothing', async () => {
    // The server of this file runs the workers: it holds the lease.
    await vi.waitFor(() => expect(app.workers?.active()).toBe(true), { timeout: 10_000, interval: 20 });
    for (const args of [
      ['migrate', '--json'],
      ['init', '--json'],
    ]) {
      const r = await runCli(args, { ...env, WALLET_PASSPHRASE: 'correct horse battery staple' });
      expect(r.code, args[0]).toBe(1);
      expect(r.json.error).toMatchObject({
        code: 'invalid_state',
        message: expect.stringMatching(/worker lease is held by .+ Stop every paygate serve first/),
      });
    }
    expect(existsSync(env.WALLET_KEYSTORE as string)).toBe(false);
  });
});
