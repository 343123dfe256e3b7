/**
 * Rate limits across replicas (docs/adr/0050-rate-limits-across-replicas.md): two apps on one
 * database, as two `serve` replicas behind a load balancer. With the same REDIS_URL they share the
 * per-key and per-IP counts (the real Redis on 127.0.0.1:6379, a key prefix of each test's own);
 * without it each counts alone; with Redis unreachable they go on serving, each counting alone,
 * say so once, and share the counts again once Redis answers.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { initWallet } from '../../src/wallet/service.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';
import { api, type ApiResponse } from '../helpers/http.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';

const REDIS = 'redis://127.0.0.1:6379';
const invoice = { order_id: 'o-1', asset: 'USDT_TRON', amount: '10', expires_in: 600 };

const open: TestApp[] = [];
const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const t of open.splice(0).reverse()) await t.close();
  for (const s of servers.splice(0)) await s.close();
});

/**
 * Two replicas on one database with a wallet (for invoices), neither running background work: the
 * limits are all that is looked at.
 */
async function replicas(given: Record<string, string>, opts: TestAppOptions = {}): Promise<[TestApp, TestApp]> {
  const env = { WALLET_PASSPHRASE: TEST_PASSPHRASE, ...given };
  const a = await startTestApp({ ...opts, workers: false, env });
  open.push(a);
  await initWallet(a.app.services.db, a.clock, 'test', a.app.config, { mnemonic: TEST_MNEMONIC, scrypt: CHEAP_SCRYPT });
  const b = await startTestApp({
    ...opts,
    workers: false,
    env: { ...env, DATABASE_URL: a.app.config.databaseUrl },
  });
  open.push(b);
  return [a, b];
}

const prefix = () => `paygate-test:${randomBytes(6).toString('hex')}:`;

function limitHeaders(r: ApiResponse) {
  return {
    limit: r.headers.get('x-ratelimit-limit'),
    remaining: r.headers.get('x-ratelimit-remaining'),
    reset: r.headers.get('x-ratelimit-reset'),
  };
}

/** A request that may be refused but is never a 500, with the headers the spec promises. */
function expectServed(r: ApiResponse): void {
  expect([200, 201, 429], r.text).toContain(r.status);
  expect(r.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  expect(r.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(r.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
}

function expectLimited(r: ApiResponse, limit: string): void {
  expect(r.status, r.text).toBe(429);
  expect(r.body.error.code).toBe('rate_limited');
  const h = limitHeaders(r);
  expect(h.limit).toBe(limit);
  expect(h.remaining).toBe('0');
  expect(Number(h.reset)).toBeGreaterThanOrEqual(1);
  expect(Number(h.reset)).toBeLessThanOrEqual(60);
  expect(r.headers.get('retry-after')).toBe(h.reset);
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A listener on `port` that passes every connection through to the Redis on 127.0.0.1:6379. */
async function forwardToRedis(port: number): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const redis = net.connect(6379, '127.0.0.1');
    for (const s of [client, redis]) {
      sockets.add(s);
      s.on('error', () => s.destroy()).on('close', () => {
        sockets.delete(s);
        client.destroy();
        redis.destroy();
      });
    }
    client.pipe(redis).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Log lines, parsed. */
function capturedLogs(): { lines: Array<{ level: number; msg: string; [k: string]: unknown }>; stream: Writable } {
  const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, stream };
}

describe('rate limits with REDIS_URL shared by two replicas', () => {
  it('share the per-key limit: requests split over both are refused at the limit in total', async () => {
    const env = {
      REDIS_URL: REDIS,
      REDIS_KEY_PREFIX: prefix(),
      API_RATE_LIMIT_PER_KEY: '4',
      API_RATE_LIMIT_PER_IP: '1000',
    };
    const [a, b] = await replicas(env);
    const { merchant, key } = await a.merchant();
    const created = await api(a.url, '/v1/invoices', { key, body: invoice });
    expect(created.status).toBe(201);
    expect(limitHeaders(created)).toEqual({ limit: '4', remaining: '3', reset: '60' });
    const path = `/v1/invoices/${created.body.invoice_id}`;
    const seen: string[] = [];
    for (const t of [b, a, b]) {
      const r = await api(t.url, path, { key });
      expect(r.status).toBe(200);
      expect(r.body.invoice_id).toBe(created.body.invoice_id);
      expect(r.headers.get('x-ratelimit-limit')).toBe('4');
      seen.push(r.headers.get('x-ratelimit-remaining') as string);
    }
    expect(seen).toEqual(['2', '1', '0']);
    expectLimited(await api(a.url, path, { key }), '4');
    expectLimited(await api(b.url, path, { key }), '4');
    // Another key of the merchant has a window of its own.
    const other = await b.key(merchant.merchant_id);
    const fresh = await api(b.url, path, { key: other });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('share the per-IP limit of /v1 and of the cabinet, each listener its own count', async () => {
    const env = { REDIS_URL: REDIS, REDIS_KEY_PREFIX: prefix(), API_RATE_LIMIT_PER_IP: '3' };
    const [a, b] = await replicas(env);
    const statuses: number[] = [];
    for (const t of [a, b, a]) statuses.push((await api(t.url, '/v1/openapi.json')).status);
    expect(statuses).toEqual([200, 200, 200]);
    expectLimited(await api(b.url, '/v1/openapi.json'), '3');
    // The cabinet's listener counts apart from /v1, and is shared too.
    const cabinet = (t: TestApp) => api(t.app.cabinetUrl as string, '/cabinet/v1/openapi.json');
    const cab: string[] = [];
    for (const t of [b, a, b]) {
      const r = await cabinet(t);
      expect(r.status).toBe(200);
      cab.push(r.headers.get('x-ratelimit-remaining') as string);
    }
    expect(cab).toEqual(['2', '1', '0']);
    expectLimited(await cabinet(a), '3');
  });
});

describe('rate limits without REDIS_URL', () => {
  it('are counted by each replica alone', async () => {
    const [a, b] = await replicas({ API_RATE_LIMIT_PER_KEY: '4', API_RATE_LIMIT_PER_IP: '1000' });
    const { key } = await a.merchant();
    const created = await api(a.url, '/v1/invoices', { key, body: invoice });
    expect(created.status).toBe(201);
    const path = `/v1/invoices/${created.body.invoice_id}`;
    for (const want of ['2', '1', '0']) {
      const r = await api(a.url, path, { key });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(want);
    }
    expectLimited(await api(a.url, path, { key }), '4');
    // The other replica has counted none of them.
    const elsewhere = await api(b.url, path, { key });
    expect(elsewhere.status).toBe(200);
    expect(limitHeaders(elsewhere)).toEqual({ limit: '4', remaining: '3', reset: '60' });
  });
});

describe('rate limits with Redis unreachable', () => {
  it('go on serving, each replica counting alone, warn once, and share again once Redis answers', async () => {
    const port = await closedPort();
    const logs = capturedLogs();
    const env = {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_KEY_PREFIX: prefix(),
      API_RATE_LIMIT_PER_KEY: '4',
      API_RATE_LIMIT_PER_IP: '1000',
    };
    const [a, b] = await replicas(env, { logger: createLogger('info', logs.stream) });
    const { merchant, key } = await a.merchant();
    const created = await api(a.url, '/v1/invoices', { key, body: invoice });
    expect(created.status).toBe(201);
    expect(limitHeaders(created)).toEqual({ limit: '4', remaining: '3', reset: '60' });
    const path = `/v1/invoices/${created.body.invoice_id}`;
    for (const want of ['2', '1', '0']) {
      const r = await api(a.url, path, { key });
      expectServed(r);
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(want);
    }
    // The limit still holds in each replica.
    expectLimited(await api(a.url, path, { key }), '4');
    const other = await api(b.url, path, { key });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('3');

    const warnings = logs.lines.filter((l) => l.msg.startsWith('rate limits: Redis does not answer'));
    // Once per replica, however many reconnections failed meanwhile.
    expect(warnings).toHaveLength(2);
    expect(logs.lines.filter((l) => l.level >= 50)).toEqual([]);

    // Redis comes up on that port (the real one, reached through a forwarder listening there): the
    // replicas count in it again, together.
    servers.push(await forwardToRedis(port));
    // Each replica notices at its next request once its connection is back: polled with a key of
    // its own, so the counts of `key` show where they are kept.
    const poller = await a.key(merchant.merchant_id);
    const answered = () => logs.lines.filter((l) => l.msg.startsWith('rate limits: Redis answers again'));
    await vi.waitFor(
      async () => {
        for (const t of [a, b]) expectServed(await api(t.url, path, { key: poller }));
        expect(answered()).toHaveLength(2);
      },
      { timeout: 15_000, interval: 200 },
    );
    const shared: string[] = [];
    for (const t of [a, b, a]) {
      const r = await api(t.url, path, { key });
      expect(r.status).toBe(200);
      shared.push(r.headers.get('x-ratelimit-remaining') as string);
    }
    expect(shared).toEqual(['3', '2', '1']);
  });
});

describe('rate limits with a Redis that never answers', () => {
  it('serve without waiting on it, each replica counting alone', async () => {
    // Accepts connections and reads nothing back: a hung server, not a refused port.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => void sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const logs = capturedLogs();
    try {
      const { port } = silent.address() as net.AddressInfo;
      const [a] = await replicas(
        {
          REDIS_URL: `redis://:a-password@127.0.0.1:${port}`,
          REDIS_KEY_PREFIX: prefix(),
          API_RATE_LIMIT_PER_KEY: '2',
          API_RATE_LIMIT_PER_IP: '1000',
        },
        { logger: createLogger('info', logs.stream) },
      );
      const { key } = await a.merchant();
      const created = await api(a.url, '/v1/invoices', { key, body: invoice });
      expect(created.status).toBe(201);
      const r = await api(a.url, `/v1/invoices/${created.body.invoice_id}`, { key });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      expectLimited(await api(a.url, `/v1/invoices/${created.body.invoice_id}`, { key }), '2');
      // The URL's password is in no log line.
      const warnings = logs.lines.filter((l) => l.msg.startsWith('rate limits: Redis does not answer'));
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toMatchObject({ redis: `redis://:***@127.0.0.1:${port}`, reason: 'Command timed out' });
      expect(JSON.stringify(logs.lines)).not.toContain('a-password');
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});
