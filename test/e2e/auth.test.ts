/** Authentication, merchant isolation at the key level, and rate limits over real HTTP. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.js';
import { revokeKey } from '../../src/keys/service.js';
import { changeMerchant } from '../../src/merchants/service.js';
import { runCliProcess } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes } from '../helpers/probe-routes.js';

const body = { order_id: 'o-1', asset: 'USDT_TRON', amount: '10', expires_in: 600 };
const keyIdOf = (key: string) => key.slice(3, 19);
const withSecret = (key: string, secret: string) => `sk_${keyIdOf(key)}_${secret}`;
const otherSecret = 'A'.repeat(43);

describe('authentication', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-01T10:00:00Z');
  beforeAll(async () => {
    t = await startTestApp({ clock, extraRoutes: probeRoutes });
  });
  afterAll(() => t.close());

  it('accepts a valid key and rejects every kind of bad key with the same 401', async () => {
    const { merchant, key } = await t.merchant();
    const ok = await api(t.url, '/v1/probe', { key, body });
    expect(ok.status).toBe(200);
    expect(ok.body.merchant_id).toBe(merchant.merchant_id);
    const bad = [
      undefined,
      '',
      'sk_live_123',
      key.toUpperCase(),
      key + 'x',
      `sk_${'0'.repeat(16)}_${otherSecret}`,
      withSecret(key, otherSecret),
      key.slice(0, -1),
      key.replace('sk_', 'pk_'),
    ];
    const bodies = new Set<string>();
    for (const k of bad) {
      const r = await api(t.url, '/v1/probe', { body, headers: k === undefined ? {} : { 'x-api-key': k } });
      expect(r.status, String(k)).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
      bodies.add(JSON.stringify(r.body));
    }
    expect(bodies.size).toBe(1);
  });

  it('lets a merchant use several keys at once and keeps merchants apart', async () => {
    const a = await t.merchant({ name: 'A' });
    const a2 = await t.key(a.merchant.merchant_id);
    const b = await t.merchant({ name: 'B' });
    for (const [k, id] of [
      [a.key, a.merchant.merchant_id],
      [a2, a.merchant.merchant_id],
      [b.key, b.merchant.merchant_id],
    ] as const) {
      const r = await api(t.url, '/v1/probe', { key: k, body });
      expect(r.body.merchant_id).toBe(id);
    }
    // B's key id with A's secret is not A and not B.
    const mixed = withSecret(b.key, a.key.slice(20));
    expect((await api(t.url, '/v1/probe', { key: mixed, body })).status).toBe(401);
  });

  it('answers 403 merchant_disabled for a disabled merchant, and works again once enabled', async () => {
    const { merchant, key } = await t.merchant();
    expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
    await changeMerchant(t.app.services.db, clock, 'test', merchant.merchant_id, 'disable');
    // The second request finds the key and the (disabled) merchant row cached: still 403.
    for (let i = 0; i < 2; i++) {
      const r = await api(t.url, '/v1/probe', { key, body });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('merchant_disabled');
    }
    // A wrong secret for a disabled merchant's key still says nothing more than 401.
    expect((await api(t.url, '/v1/probe', { key: withSecret(key, otherSecret), body })).status).toBe(401);
    await changeMerchant(t.app.services.db, clock, 'test', merchant.merchant_id, 'enable');
    expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
  });

  it('accepts keys of merchants not approved yet (reads still work)', async () => {
    const { key } = await t.merchant({ approve: false });
    expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
  });

  it('stops accepting a revoked key on its next request, though its secret was verified moments before', async () => {
    const { key } = await t.merchant();
    expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
    await revokeKey(t.app.services.db, clock, 'test', keyIdOf(key));
    const r = await api(t.url, '/v1/probe', { key, body });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
  });

  it('a revoked key that was never used is refused at once', async () => {
    const { key } = await t.merchant();
    await revokeKey(t.app.services.db, clock, 'test', keyIdOf(key));
    expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(401);
  });
});

describe('bounded hashing', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-01T10:00:00Z');
  beforeAll(async () => {
    t = await startTestApp({
      clock,
      extraRoutes: probeRoutes,
      env: { API_RATE_LIMIT_PER_IP: '100000' },
      verifier: { hashBudgetPerKey: 5, hashBudgetPerIp: 30, hashesPerSecond: 1000 },
    });
  });
  afterAll(() => t.close());

  it('hashes once per key, never for unknown ids, and a bounded number of times for wrong secrets', async () => {
    const v = t.app.services.verifier;
    const { key } = await t.merchant();
    const before = v.hashCount;
    for (let i = 0; i < 20; i++) {
      const id = i.toString(16).padStart(16, 'f');
      expect((await api(t.url, '/v1/probe', { key: `sk_${id}_${otherSecret}`, body })).status).toBe(401);
    }
    expect(v.hashCount - before).toBe(0);

    // Wrong secrets for a known but not yet verified key: at most the budget; past it the key is
    // not checked at all, so the answer is 429 (never a 401 for a key that may be right).
    const wrong = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api(t.url, '/v1/probe', { key: withSecret(key, String(i).padStart(43, 'b')), body }),
      ),
    );
    expect(wrong.filter((r) => r.status === 401)).toHaveLength(5);
    expect(
      wrong.filter((r) => r.status === 429 && r.body.error.code === 'rate_limited' && r.headers.get('retry-after')),
    ).toHaveLength(25);
    expect(v.hashCount - before).toBeLessThanOrEqual(5);

    // A new minute restores the budget, so the right secret is verified, once.
    clock.advance(60_000);
    const mark = v.hashCount;
    for (let i = 0; i < 10; i++) expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
    expect(v.hashCount - mark).toBe(1);

    // Once verified, wrong secrets are refused without hashing.
    for (let i = 0; i < 10; i++)
      expect((await api(t.url, '/v1/probe', { key: withSecret(key, String(i).padStart(43, 'c')), body })).status).toBe(
        401,
      );
    expect(v.hashCount - mark).toBe(1);

    // A verified secret is trusted for 60 s at most: past that it is hashed again, once.
    clock.advance(61_000);
    for (let i = 0; i < 3; i++) expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
    expect(v.hashCount - mark).toBe(2);
  });

  it("a stranger who knows a key id cannot spend its owner's hashing budget", async () => {
    const v = t.app.services.verifier;
    const { key } = await t.merchant();
    for (let i = 0; i < 12; i++) {
      await expect(v.authenticate(withSecret(key, String(i).padStart(43, 'd')), '203.0.113.7')).rejects.toMatchObject({
        code: i < 5 ? 'unauthorized' : 'rate_limited',
      });
    }
    // The stranger's budget is spent: even the right secret from the stranger's address is refused...
    await expect(v.authenticate(key, '203.0.113.7')).rejects.toMatchObject({ code: 'rate_limited' });
    // ...but the owner, from its own address, gets in.
    await expect(v.authenticate(key, '198.51.100.1')).resolves.toMatchObject({ id: expect.any(String) });
  });

  it('caps hashing per client address across key ids', async () => {
    const v = t.app.services.verifier;
    const keys = await Promise.all(Array.from({ length: 8 }, async () => (await t.merchant()).key));
    const mark = v.hashCount;
    for (const k of keys) {
      for (let i = 0; i < 5; i++)
        await expect(v.authenticate(withSecret(k, String(i).padStart(43, 'e')), '192.0.2.9')).rejects.toThrow();
    }
    expect(v.hashCount - mark).toBeLessThanOrEqual(30);
  });

  it('verifies a new key once when a client opens with many parallel requests', async () => {
    const v = t.app.services.verifier;
    const { key } = await t.merchant();
    const mark = v.hashCount;
    const answers = await Promise.all(Array.from({ length: 24 }, () => api(t.url, '/v1/probe', { key, body })));
    expect(answers.map((r) => r.status)).toEqual(Array(24).fill(200));
    expect(v.hashCount - mark).toBe(1);
  });

  it('refuses a key revoked while its first verification was still hashing', async () => {
    const v = t.app.services.verifier;
    const { key } = await t.merchant();
    // The first request reads the key row (not revoked), then hashes on libuv's pool.
    const first = v.authenticate(key, '192.0.2.30');
    await new Promise((r) => setImmediate(r));
    // `key revoke` commits now (in another process, as far as the verifier can tell)…
    await t.app.database.db
      .updateTable('api_keys')
      .set({ revoked_at: clock.now().toISOString() })
      .where('key_id', '=', keyIdOf(key))
      .execute();
    // …and a request that starts after it must not ride on the check that began before it.
    await expect(v.authenticate(key, '192.0.2.30')).rejects.toMatchObject({ code: 'unauthorized' });
    await first.catch(() => undefined);
    await expect(v.authenticate(key, '192.0.2.30')).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('remembers a secret that already failed', async () => {
    const v = t.app.services.verifier;
    const { key } = await t.merchant();
    const bad = withSecret(key, otherSecret);
    const mark = v.hashCount;
    for (let i = 0; i < 4; i++) expect((await api(t.url, '/v1/probe', { key: bad, body })).status).toBe(401);
    expect(v.hashCount - mark).toBe(1);
    expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
  });
});

describe('rate limits', () => {
  let t: TestApp;
  // A window is a minute of Date.now() from a client's first request (the rate-limit plugin's
  // clock): Date stands still here, and the tests move it.
  const minutePasses = () => vi.setSystemTime(Date.now() + 60_000);
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-01T10:00:10Z') });
    t = await startTestApp({
      clock: systemClock,
      extraRoutes: probeRoutes,
      env: { API_RATE_LIMIT_PER_IP: '8', API_RATE_LIMIT_PER_KEY: '3' },
    });
  });
  afterAll(async () => {
    await t.close();
    vi.useRealTimers();
  });

  it('limits per key with headers and Retry-After, then resets with the window', async () => {
    const { key } = await t.merchant();
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await api(t.url, '/v1/probe', { key, body });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('3');
      seen.push(r.headers.get('x-ratelimit-remaining') as string);
    }
    expect(seen).toEqual(['2', '1', '0']);
    const limited = await api(t.url, '/v1/probe', { key, body });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(limited.headers.get('x-ratelimit-reset')).toBe('60');
    // Another key of the same merchant has its own budget.
    const other = await t.key((await t.merchant()).merchant.merchant_id);
    expect((await api(t.url, '/v1/probe', { key: other, body })).status).toBe(200);
    vi.setSystemTime(Date.now() + 30_000);
    const later = await api(t.url, '/v1/probe', { key, body });
    expect(later.status).toBe(429);
    expect(later.headers.get('retry-after')).toBe('30');
    vi.setSystemTime(Date.now() + 30_000);
    expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
  });

  it('limits per IP, counting requests with wrong keys, before authentication', async () => {
    minutePasses();
    const { key } = await t.merchant();
    for (let i = 0; i < 8; i++) {
      const r = await api(t.url, '/v1/probe', { key: 'sk_wrong', body });
      expect(r.status).toBe(401);
      expect(r.headers.get('x-ratelimit-limit')).toBe('8');
    }
    const r = await api(t.url, '/v1/probe', { key, body });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    // An unknown route is still a 404: routing comes before the limit.
    expect((await api(t.url, '/v1/nowhere')).status).toBe(404);
  });

  it("shows an authenticated client the per-IP limit while that one is nearer than its key's", async () => {
    minutePasses();
    const { key } = await t.merchant();
    for (let i = 0; i < 6; i++) expect((await api(t.url, '/v1/probe', { key: 'sk_wrong', body })).status).toBe(401);
    // The address has 2 of 8 left, the key 3 of 3: the answer shows the address's count.
    const r = await api(t.url, '/v1/probe', { key, body });
    expect(r.status).toBe(200);
    expect([r.headers.get('x-ratelimit-limit'), r.headers.get('x-ratelimit-remaining')]).toEqual(['8', '1']);
  });
});

describe('revocation from another process', () => {
  it('refuses the key on every request that starts after `key revoke` exits', async () => {
    const t = await startTestApp({
      clock: systemClock,
      extraRoutes: probeRoutes,
      env: { API_RATE_LIMIT_PER_IP: '1000000', API_RATE_LIMIT_PER_KEY: '1000000' },
    });
    try {
      const { key } = await t.merchant();
      // Back-to-back requests keep the key's verified secret in the server's memory: only the key
      // row, read on every request, can refuse it.
      const answers: { sentAt: number; status: number }[] = [];
      let exitedAt = Infinity;
      const load = (async () => {
        while (answers.length === 0 || answers[answers.length - 1]!.sentAt < exitedAt + 50) {
          const sentAt = performance.now();
          answers.push({ sentAt, status: (await api(t.url, '/v1/probe', { key, body })).status });
        }
      })();
      await new Promise((r) => setTimeout(r, 50));
      const revoked = await runCliProcess(['key', 'revoke', keyIdOf(key), '--json'], {
        DATABASE_URL: t.app.config.databaseUrl,
        TRON_NETWORK: 'devnet',
      });
      exitedAt = performance.now();
      expect(revoked.json.status).toBe('revoked');
      await load;

      const late = answers.filter((a) => a.sentAt >= exitedAt);
      expect(late.length).toBeGreaterThan(0);
      expect(new Set(late.map((a) => a.status))).toEqual(new Set([401]));
      // Accepted until the revocation showed, refused from then on: never accepted again.
      const statuses = answers.map((a) => a.status);
      expect(statuses[0]).toBe(200);
      const firstRefused = statuses.indexOf(401);
      expect(statuses.slice(0, firstRefused).every((s) => s === 200)).toBe(true);
      expect(statuses.slice(firstRefused).every((s) => s === 401)).toBe(true);
    } finally {
      await t.close();
    }
  }, 60_000);
});
