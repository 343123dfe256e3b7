/**
 * Abuse bounds: IPv6 clients are counted by /64, argon2 verifications are capped per second for
 * the whole process, and a key that could not be checked (capacity spent) is answered 503 with
 * Retry-After, never 401.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { api } from '../helpers/http.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes } from '../helpers/probe-routes.js';
import { issueKey } from '../../src/keys/service.js';
import { ApiKeyVerifier } from '../../src/keys/verifier.js';
import { createLogger } from '../../src/logger.js';
import { Writable } from 'node:stream';
import { ON_POSTGRES } from '../helpers/database.js';

const body = { order_id: 'o-1', asset: 'USDT_TRON', amount: '10', expires_in: 600 };
/**
 * Keys whose one verification takes far longer (~140 ms) than the 20 ms a queued one may wait:
 * argon2's library defaults, set here so these tests do not depend on the production setting.
 */
const SLOW_HASH = { memoryCost: 65_536, timeCost: 3, parallelism: 4 };
/** A verification that outlasts a dozen key row reads (~0.5 s), even on a busy machine. */
const SLOWEST_HASH = { ...SLOW_HASH, timeCost: 12 };

describe('per-IP limit behind a proxy with IPv6 clients', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-01T10:00:00Z');
  beforeAll(async () => {
    t = await startTestApp({ clock, extraRoutes: probeRoutes, env: { TRUST_PROXY: '1', API_RATE_LIMIT_PER_IP: '3' } });
  });
  afterAll(() => t.close());

  it('shares one budget across the addresses of a /64', async () => {
    const from = (ip: string) => api(t.url, '/v1/probe', { body, headers: { 'x-forwarded-for': ip } });
    for (const ip of ['2001:db8:1:2::a', '2001:db8:1:2::b', '2001:db8:1:2:ffff::1'])
      expect((await from(ip)).status).toBe(401);
    const limited = await from('2001:db8:1:2:dead:beef:0:1');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    // Another /64 has its own budget.
    expect((await from('2001:db8:1:3::1')).status).toBe(401);
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address', async () => {
    const from = (ip: string) => api(t.url, '/v1/probe', { body, headers: { 'x-forwarded-for': ip } });
    for (const ip of ['192.0.2.7', '::ffff:192.0.2.7', '::ffff:c000:207']) expect((await from(ip)).status).toBe(401);
    expect((await from('192.0.2.7')).status).toBe(429);
    expect((await from('192.0.2.8')).status).toBe(401);
  });
});

describe('hashing capacity', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-01T10:00:00Z');
  beforeAll(async () => {
    t = await startTestApp({
      clock,
      extraRoutes: probeRoutes,
      env: { API_RATE_LIMIT_PER_IP: '100000' },
      verifier: { hashesPerSecond: 3, hashBudgetPerIp: 1000, maxConcurrentHashes: 1, maxQueue: 1 },
    });
  });
  afterAll(() => t.close());

  it('caps argon2 verifications per second for all clients, answering 503 with Retry-After', async () => {
    const v = t.app.services.verifier;
    const keys = await Promise.all(Array.from({ length: 5 }, async () => (await t.merchant()).key));
    const mark = v.hashCount;
    for (const key of keys.slice(0, 3)) expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
    for (const key of keys.slice(3)) {
      const busy = await api(t.url, '/v1/probe', { key, body });
      expect(busy.status).toBe(503);
      expect(busy.body.error.code).toBe('service_unavailable');
      expect(busy.headers.get('retry-after')).toBe('1');
    }
    expect(v.hashCount - mark).toBe(3);
    // The next second the right keys get in.
    clock.advance(1000);
    expect((await api(t.url, '/v1/probe', { key: keys[3]!, body })).status).toBe(200);
  });

  // Needs the three key rows read in one turn of the event loop, so that the three verifications
  // meet at the queue: SQLite's reads give that, PostgreSQL's pool answers them at different times
  // (the queue itself does not depend on the engine).
  it.skipIf(ON_POSTGRES)(
    'answers 503 service_unavailable, never 401, for right keys that find the queue full',
    async () => {
      const v = t.app.services.verifier;
      const keys = await Promise.all(Array.from({ length: 3 }, async () => (await t.merchant()).key));
      clock.advance(1000);
      // Started together: one verification runs, one waits, the third finds the queue full.
      const answers = await Promise.all(
        keys.map((key, i) =>
          v.authenticate(key, `192.0.2.${i}`).then(
            () => 'ok',
            (e) => e,
          ),
        ),
      );
      expect(answers.slice(0, 2)).toEqual(['ok', 'ok']);
      expect(answers[2]).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'retry-after': '1' } });
      // Retried (the next second: three hashes were this second's cap), it is verified.
      clock.advance(1000);
      await expect(v.authenticate(keys[2]!, '192.0.2.2')).resolves.toMatchObject({ id: expect.any(String) });
    },
  );
});

describe('waiting for a hashing slot', () => {
  let t: TestApp;
  const logLines: Array<{ level: number; msg: string }> = [];
  beforeAll(async () => {
    const sink = new Writable({
      write: (chunk, _enc, done) => void (logLines.push(JSON.parse(String(chunk))), done()),
    });
    t = await startTestApp({
      env: { API_RATE_LIMIT_PER_IP: '100000' },
      extraRoutes: probeRoutes,
      logger: createLogger('info', sink),
      verifier: { hashBudgetPerIp: 1000, maxConcurrentHashes: 1, maxQueue: 64, maxQueueWaitMs: 20 },
    });
  });
  afterAll(() => t.close());

  it('answers 503 with Retry-After, never 401 and never a long wait, for a right key whose turn does not come in time', async () => {
    const v = t.app.services.verifier;
    const { merchant } = await t.merchant();
    const keys = await Promise.all(
      Array.from(
        { length: 3 },
        async () => (await issueKey(t.app.services.db, t.clock, 'test', merchant.merchant_id, SLOW_HASH)).api_key,
      ),
    );
    const answers = await Promise.all(
      keys.map((key, i) =>
        v.authenticate(key, `192.0.2.${i}`).then(
          () => 'ok',
          (e) => e,
        ),
      ),
    );
    // The first key row read takes the slot (on PostgreSQL the three reads may come back in any order).
    expect(answers.filter((a) => a === 'ok')).toHaveLength(1);
    const refused = keys.filter((_, i) => answers[i] !== 'ok');
    expect(refused).toHaveLength(2);
    for (const a of answers.filter((a) => a !== 'ok'))
      expect(a).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'retry-after': '1' } });
    expect(v.refused.server_busy).toBe(2);
    // Nothing is left waiting: retried one at a time, each right key is verified.
    for (const key of refused) expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
  });

  it('charges no client budget for a key the server had no capacity to check, so an owner retrying its right key never ends with 429', async () => {
    // No queue: while one verification runs, every other key is refused at once.
    const v = new ApiKeyVerifier(t.app.services.db, t.clock, { maxConcurrentHashes: 1, maxQueue: 0 });
    const { merchant } = await t.merchant();
    const [busyKey, ownerKey] = await Promise.all(
      [SLOWEST_HASH, SLOW_HASH].map(
        async (cost) => (await issueKey(t.app.services.db, t.clock, 'test', merchant.merchant_id, cost)).api_key,
      ),
    );
    // One slow verification holds the only slot (taken once its key row is read), and the owner's
    // retries find no room.
    const holding = v.authenticate(busyKey!, '198.51.100.1');
    await vi.waitFor(() => expect(v.hashCount).toBe(1), { interval: 1 });
    const answers = [];
    for (let i = 0; i < 12; i++)
      answers.push(
        await v.authenticate(ownerKey!, '198.51.100.2').then(
          () => 'ok',
          (e) => e.code,
        ),
      );
    await holding;
    // More retries than the per-key budget (10 a minute): every one 503, none 429.
    expect(answers).toEqual(Array(12).fill('service_unavailable'));
    await expect(v.authenticate(ownerKey!, '198.51.100.2')).resolves.toMatchObject({ id: merchant.merchant_id });
  });

  it('logs a key left unchecked for capacity as a warning without a stack, not as an error', async () => {
    const { merchant } = await t.merchant();
    const keys = await Promise.all(
      Array.from(
        { length: 3 },
        async () => (await issueKey(t.app.services.db, t.clock, 'test', merchant.merchant_id, SLOW_HASH)).api_key,
      ),
    );
    const statuses = (await Promise.all(keys.map((key) => api(t.url, '/v1/probe', { key, body }))))
      .map((r) => r.status)
      .sort();
    expect(statuses).toEqual([200, 503, 503]);
    const refusals = logLines.filter((l) => /service_unavailable/.test(l.msg));
    expect(refusals.map((l) => [l.level, l.msg])).toEqual([
      [40, 'request refused: service_unavailable'],
      [40, 'request refused: service_unavailable'],
    ]);
    expect(refusals.some((l) => 'err' in l)).toBe(false);
  });
});
