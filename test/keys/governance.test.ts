/**
 * API key governance over real HTTP on loopback (the client address is 127.0.0.1): a key limited
 * to other networks, or past its expiry, gets the same 401 body as any bad key; the last use is
 * stamped at most once a minute per key, with no database write for the requests in between;
 * `key issue` with a label, an expiry and networks, `key list` showing them, refusals that write
 * nothing; keys about to expire in the log and the metrics.
 */
import Sqlite from 'better-sqlite3';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { warnExpiringKeys } from '../../src/keys/operations.js';
import { issueKey, listKeys } from '../../src/keys/service.js';
import { normaliseNetwork } from '../../src/keys/terms.js';
import { startTestApp, TEST_HASH_COST, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { postgresDigest } from '../helpers/database.js';
import { api } from '../helpers/http.js';

let t: TestApp;
let clock: ManualClock;
let merchantId: string;
let logs = '';
const db = () => t.app.services.db;
const key = (terms: Parameters<typeof issueKey>[5]) =>
  issueKey(db(), clock, 'test', merchantId, TEST_HASH_COST, terms).then((k) => k);
const read = (apiKey: string) => api(t.url, '/v1/invoices/00000000-0000-4000-8000-000000000000', { key: apiKey });

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs += String(chunk);
      cb();
    },
  });
  t = await startTestApp({ workers: false, logger: createLogger('info', sink) });
  clock = t.clock as ManualClock;
  merchantId = (await t.merchant({ name: 'Keyed shop' })).merchant.merchant_id;
});
afterAll(() => t.close());

describe('a key limited to client networks', () => {
  it('works from an allowed network and is the same 401 as any bad key from another', async () => {
    const loopback = await key({ allowedNetworks: ['127.0.0.0/8'] });
    const elsewhere = await key({ allowedNetworks: ['10.0.0.0/8', '2001:db8::/32'] });
    // A read of an absent invoice: 404 once the key is accepted.
    expect((await read(loopback.api_key)).status).toBe(404);
    const refused = await read(elsewhere.api_key);
    const unknown = await read(`sk_${'0'.repeat(16)}_${'A'.repeat(43)}`);
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(unknown.text);
    expect(refused.body).toEqual({ error: { code: 'unauthorized', message: 'Missing or invalid API key' } });
    // The same key, with a wrong secret: the same body again.
    expect((await read(`${elsewhere.api_key.slice(0, 20)}${'B'.repeat(43)}`)).text).toBe(unknown.text);
  });

  it('normalises networks and refuses what is not one', () => {
    expect(normaliseNetwork('203.0.113.7')).toBe('203.0.113.7/32');
    expect(normaliseNetwork(' 2001:0db8::/32 ')).toBe('2001:db8::/32');
    expect(() => normaliseNetwork('10.1.2.3/8')).toThrow(/host bits set: the network is 10\.0\.0\.0\/8/);
    for (const bad of ['10.1', '010.1.2.3', '10.0.0.0/33', 'fe80::1%eth0', 'localhost', ''])
      expect(() => normaliseNetwork(bad), bad).toThrow(/--allow-ip/);
  });
});

describe('a key with an expiry', () => {
  it('is refused from its expiry on, with the same 401, and listed as expired', async () => {
    const k = await key({ label: 'rotating', expiresInMs: 3_600_000 });
    expect(k.expires_at).toBe(new Date(clock.now().getTime() + 3_600_000).toISOString());
    expect((await read(k.api_key)).status).toBe(404);
    clock.advance(3_599_999);
    expect((await read(k.api_key)).status).toBe(404);
    clock.advance(1);
    const refused = await read(k.api_key);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: { code: 'unauthorized', message: 'Missing or invalid API key' } });
    const listed = (await listKeys(db(), merchantId, clock)).find((x) => x.key_id === k.key_id);
    expect(listed).toMatchObject({ status: 'expired', label: 'rotating', expires_at: k.expires_at });
  });
});

describe('last use', () => {
  it('is stamped at most once a minute per key, with no write for the requests in between', async () => {
    const k = await key({});
    // Whether anything was committed: SQLite's data_version moves when another connection commits;
    // on PostgreSQL a digest of every row.
    const file = t.app.config.databasePath;
    const watcher = file ? new Sqlite(file, { readonly: true }) : null;
    const written = async () =>
      watcher ? String(watcher.pragma('data_version', { simple: true })) : await postgresDigest(t.app.database);
    try {
      const stamp = async () =>
        (await db().selectFrom('api_keys').select('last_used_at').where('key_id', '=', k.key_id).executeTakeFirst())
          ?.last_used_at;
      expect(await stamp()).toBeNull();
      const first = clock.now().toISOString();
      await read(k.api_key);
      await vi.waitFor(async () => expect(await stamp()).toBe(first));
      // Nothing may be committed for these requests.
      const version = await written();
      for (let i = 0; i < 20; i++) {
        clock.advance(2_000);
        expect((await read(k.api_key)).status).toBe(404);
      }
      await new Promise((r) => setTimeout(r, 100));
      expect(await written()).toBe(version);
      expect(await stamp()).toBe(first);
      // A minute after the stamp: the next request stamps again.
      clock.advance(20_000);
      const second = clock.now().toISOString();
      await read(k.api_key);
      await vi.waitFor(async () => expect(await stamp()).toBe(second));
      expect(await written()).not.toBe(version);
    } finally {
      watcher?.close();
    }
  });
});

describe('paygate key issue and key list', () => {
  const env = () => ({ DATABASE_URL: t.app.config.databaseUrl, TRON_NETWORK: 'devnet' });

  it('issues a key with a label, an expiry and networks, and lists them', async () => {
    const r = await runCli(
      [
        'key',
        'issue',
        merchantId,
        '--label',
        'billing server',
        '--expires-in',
        '90d',
        '--allow-ip',
        '127.0.0.0/8',
        '--allow-ip',
        '203.0.113.7,2001:db8::/32',
        '--json',
      ],
      env(),
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.json).toMatchObject({
      label: 'billing server',
      status: 'active',
      allowed_networks: ['127.0.0.0/8', '203.0.113.7/32', '2001:db8::/32'],
      last_used_at: null,
    });
    const issuedAt = Date.parse(r.json.created_at);
    expect(Date.parse(r.json.expires_at) - issuedAt).toBe(90 * 86_400_000);
    // The CLI's key (production argon2 parameters) works from loopback.
    expect((await read(r.json.api_key)).status).toBe(404);

    const list = await runCli(['key', 'list', merchantId, '--json'], env());
    const listed = list.json.data.find((k: any) => k.key_id === r.json.key_id);
    expect(listed).toEqual({
      key_id: r.json.key_id,
      merchant_id: merchantId,
      status: 'active',
      label: 'billing server',
      created_at: r.json.created_at,
      expires_at: r.json.expires_at,
      allowed_networks: ['127.0.0.0/8', '203.0.113.7/32', '2001:db8::/32'],
      last_used_at: expect.any(String),
      revoked_at: null,
    });
    expect(JSON.stringify(list.json)).not.toContain(r.json.api_key.slice(20));
    const human = await runCli(['key', 'list', merchantId], env());
    expect(human.stdout).toMatch(/key_id\s+label\s+status\s+created_at\s+expires_at\s+allowed_networks\s+last_used_at/);
    expect(human.stdout).toContain('127.0.0.0/8 203.0.113.7/32 2001:db8::/32');
  });

  it('refuses bad terms and writes nothing', async () => {
    const before = (await listKeys(db(), merchantId, clock)).length;
    const cases: Array<[string[], RegExp]> = [
      [['--allow-ip', '10.1.2.3/8'], /host bits set/],
      [['--allow-ip', 'example.com'], /not an IP address/],
      [['--expires-in', '0'], /--expires-in must be more than 0/],
      [['--expires-in', '3651d'], /at most 3650d/],
      [['--label', '   '], /--label must be 1 to 100/],
      [['--label', 'x'.repeat(101)], /--label must be 1 to 100/],
    ];
    for (const [flags, message] of cases) {
      const r = await runCli(['key', 'issue', merchantId, ...flags, '--json'], env());
      expect(r.code, flags.join(' ')).toBe(1);
      expect(r.json.error.code).toBe('invalid_argument');
      expect(r.json.error.message).toMatch(message);
    }
    expect((await listKeys(db(), merchantId, clock)).length).toBe(before);
  });
});

describe('keys about to expire', () => {
  it('are logged as warnings by the daily job and counted by the metric', async () => {
    const other = (await t.merchant({ name: 'Expiring shop' })).merchant.merchant_id;
    const soon = await issueKey(db(), clock, 'test', other, TEST_HASH_COST, {
      label: 'soon',
      expiresInMs: 3 * 86_400_000,
    });
    await issueKey(db(), clock, 'test', other, TEST_HASH_COST, { expiresInMs: 30 * 86_400_000 });
    const revoked = await issueKey(db(), clock, 'test', other, TEST_HASH_COST, { expiresInMs: 86_400_000 });
    await runCli(['key', 'revoke', revoked.key_id], {
      DATABASE_URL: t.app.config.databaseUrl,
      TRON_NETWORK: 'devnet',
    });

    logs = '';
    expect(await warnExpiringKeys(t.app.services)).toBe(1);
    const lines = logs
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        key_id: soon.key_id,
        merchant_id: other,
        label: 'soon',
        expires_at: soon.expires_at,
      }),
    ]);
    const metrics = await (await fetch(`${t.app.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/^paygate_api_keys_expiring 1$/m);
  });
});
