/**
 * Operator tokens with terms, over real HTTP on the admin listener with real argon2: a read-only
 * token reads everything and changes nothing (403 before its body is even read), an expired token
 * and one used from outside its networks are the one 401 of any bad token, and the CLI issues and
 * lists tokens with those terms. The listener's own per-IP limit answers 429 with Retry-After, and
 * the orchestrator's probes are never refused by it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { runCli } from '../helpers/cli.js';
import { cliEnvOf, expectUnauthorized, startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { api } from '../helpers/http.js';

let t: ConsoleTestApp;
beforeAll(async () => {
  t = await startConsoleApp({ workers: false });
});
afterAll(() => t.close());

/** `paygate operator token …` by the real CLI on the app's database. */
const tokenCli = (args: string) => runCli(['operator', 'token', ...args.split(' ')], cliEnvOf(t));

const merchantNames = async () =>
  (await t.app.services.db.selectFrom('merchants').select('name').execute()).map((m) => m.name);

const auditCount = async () =>
  Number(
    (
      await t.app.services.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('a read-only operator token', () => {
  it('calls every GET and is refused 403 operator_token_read_only for any change, nothing written', async () => {
    const { merchant } = await t.merchant({ name: 'Existing shop' });
    const { token } = await t.issueToken('dashboard', { readOnly: true });

    for (const p of [
      '/admin/v1/merchants',
      `/admin/v1/merchants/${merchant.merchant_id}`,
      `/admin/v1/merchants/${merchant.merchant_id}/keys`,
      '/admin/v1/assets',
      '/admin/v1/payouts',
      '/admin/v1/deliveries',
    ]) {
      const r = await t.call(p, { token });
      expect(r.status, `${p}: ${r.text}`).toBe(200);
    }

    const before = { names: await merchantNames(), audit: await auditCount() };
    const changes: Array<[string, string, Record<string, unknown> | undefined]> = [
      ['POST', '/admin/v1/merchants', { name: 'Created by a reader', site_url: 'https://reader.example' }],
      // Refused before the body is validated: an invalid body is the same 403, not a 400.
      ['POST', '/admin/v1/merchants', { name: '' }],
      ['PATCH', `/admin/v1/merchants/${merchant.merchant_id}`, { name: 'Renamed' }],
      ['POST', `/admin/v1/merchants/${merchant.merchant_id}/disable`, undefined],
      ['POST', `/admin/v1/merchants/${merchant.merchant_id}/keys`, undefined],
      ['POST', '/admin/v1/payouts/halt', {}],
    ];
    for (const [method, p, body] of changes) {
      const r = await t.call(p, { token, method, ...(body === undefined ? {} : { body }) });
      expect(r.status, `${method} ${p}: ${r.text}`).toBe(403);
      expect(r.body.error.code).toBe('operator_token_read_only');
    }
    // A body that is not even JSON is refused the same way: it is never read.
    const raw = await t.call('/admin/v1/merchants', {
      token,
      rawBody: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.status, raw.text).toBe(403);

    expect(await merchantNames()).toEqual(before.names);
    expect(await auditCount()).toBe(before.audit);
    const shown = await t.call(`/admin/v1/merchants/${merchant.merchant_id}`);
    expect(shown.body).toMatchObject({ name: 'Existing shop', enabled: true });

    // A full token makes the same change.
    const created = await t.call('/admin/v1/merchants', {
      body: { name: 'Created by a writer', site_url: 'https://writer.example' },
    });
    expect(created.status, created.text).toBe(201);
  });

  it('learns nothing with a wrong secret: a read-only token id with a wrong secret is the one 401', async () => {
    const { tokenId } = await t.issueToken('reader 2', { readOnly: true });
    expectUnauthorized(
      await t.call('/admin/v1/merchants', { token: `op_${tokenId}_${'D'.repeat(43)}`, method: 'POST', body: {} }),
      'wrong secret',
    );
  });
});

describe('token terms', () => {
  it('refuses a token from its expiry on with the 401 of any bad token', async () => {
    const clock = t.clock as ManualClock;
    const { token } = await t.issueToken('short lived', { expiresInMs: 3_600_000 });
    expect((await t.call('/admin/v1/merchants', { token })).status).toBe(200);
    clock.advance(3_599_000);
    expect((await t.call('/admin/v1/merchants', { token })).status).toBe(200);
    clock.advance(1_000);
    expectUnauthorized(await t.call('/admin/v1/merchants', { token }), 'expired');
  });

  it('refuses a token used from outside its networks, and serves it from inside them', async () => {
    const far = await t.issueToken('office only', { allowedNetworks: ['10.0.0.0/8'] });
    expectUnauthorized(await t.call('/admin/v1/merchants', { token: far.token }), 'outside 10.0.0.0/8');
    const near = await t.issueToken('loopback', { allowedNetworks: ['10.0.0.0/8', '127.0.0.1'] });
    expect((await t.call('/admin/v1/merchants', { token: near.token })).status).toBe(200);
  });
});

describe('paygate operator token issue with terms', () => {
  it('issues read-only, expiring, network-bound tokens and lists their terms', async () => {
    const issued = await tokenCli(
      'issue --name monitor --read-only --expires-in 90d --allow-ip 10.0.0.0/8 --allow-ip 127.0.0.1 --json',
    );
    expect(issued.code, issued.stderr).toBe(0);
    expect(issued.json).toMatchObject({
      name: 'monitor',
      status: 'active',
      read_only: true,
      allowed_networks: ['10.0.0.0/8', '127.0.0.1/32'],
    });
    const days = (Date.parse(issued.json.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
    const token = issued.json.token as string;
    expect((await t.call('/admin/v1/merchants', { token })).status).toBe(200);
    const refused = await t.call('/admin/v1/payouts/halt', { token, body: {} });
    expect(refused.body.error.code).toBe('operator_token_read_only');

    const listed = await tokenCli('list --json');
    const row = (listed.json.data as Array<Record<string, unknown>>).find((x) => x.name === 'monitor');
    expect(row).toMatchObject({
      token_id: issued.json.token_id,
      read_only: true,
      expires_at: issued.json.expires_at,
      allowed_networks: ['10.0.0.0/8', '127.0.0.1/32'],
    });
    const human = await tokenCli('list');
    const line = human.stdout.split('\n').find((l) => l.includes(issued.json.token_id)) as string;
    expect(line).toMatch(/monitor\s+active\s+read-only\s+\S+Z\s+10\.0\.0\.0\/8 127\.0\.0\.1\/32/);
    expect(human.stdout).toMatch(/tests\s+active\s+full\s+-\s+any/);

    const plain = await tokenCli('issue --name plain --json');
    expect(plain.json).toMatchObject({ read_only: false, expires_at: null, allowed_networks: null });
  });

  it('refuses bad terms naming the flag, and issues nothing', async () => {
    const before = (await tokenCli('list --json')).json.data.length;
    for (const [flag, value] of [
      ['--allow-ip', '10.0.0.1/8'],
      ['--allow-ip', 'example.com'],
      ['--expires-in', '0s'],
      ['--expires-in', '3651d'],
    ] as const) {
      const r = await tokenCli(`issue --name bad ${flag} ${value} --json`);
      expect(r.code, `${flag} ${value}`).not.toBe(0);
      expect(`${r.stdout}${r.stderr}`, `${flag} ${value}`).toContain(flag.slice(2));
    }
    expect((await tokenCli('list --json')).json.data.length).toBe(before);
  });
});

describe("the admin listener's request limit", () => {
  let small: ConsoleTestApp;
  beforeAll(async () => {
    small = await startConsoleApp({ workers: false, env: { ADMIN_RATE_LIMIT_PER_IP: '3' } });
  });
  afterAll(() => small?.close());

  it('answers 429 with Retry-After past its limit; the probes are never refused', async () => {
    // Every request counts, the console's document read at start included.
    let r = await small.call('/admin/v1/merchants');
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('x-ratelimit-limit')).toBe('3');
    let remaining = Number(r.headers.get('x-ratelimit-remaining'));
    expect(remaining).toBeLessThan(3);
    while (remaining > 0) {
      r = await small.call('/admin/v1/merchants');
      expect(r.status, r.text).toBe(200);
      expect(Number(r.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
      remaining -= 1;
    }
    const limited = await small.call('/admin/v1/merchants');
    expect(limited.status, limited.text).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Refused before the token: a wrong one is the same 429, not a 401.
    expect((await small.call('/admin/v1/merchants', { token: null })).status).toBe(429);

    for (const p of ['/healthz', '/readyz', '/metrics']) {
      const r = await api(small.admin, p);
      expect(r.status, p).not.toBe(429);
      expect(r.headers.get('x-ratelimit-remaining'), p).toBe('0');
    }
  });
});
