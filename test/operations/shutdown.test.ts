/**
 * Graceful shutdown of `paygate serve` as an orchestrator does it: SIGTERM arrives while a request
 * is in flight (its body half sent); the request is still answered, new connections are refused,
 * and the process exits 0.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { approvedMerchantWithKey } from '../../src/keys/service.js';
import { initWallet } from '../../src/wallet/service.js';
import { tempDir } from '../helpers/app.js';
import { DEV_BIN } from '../helpers/cli.js';
import { servedUrl } from '../helpers/serve-log.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';
import { testDatabaseUrl } from '../helpers/database.js';

const dir = tempDir();
const env = {
  DATABASE_URL: (await testDatabaseUrl(path.join(dir, 'paygate.db'))).url,
  WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
  WALLET_PASSPHRASE: TEST_PASSPHRASE,
  TRON_NETWORK: 'devnet',
  PORT: '0',
  ADMIN_PORT: '0',
  CABINET_PORT: '0',
  PAY_PORT: '0',
  // Per-request log lines ("incoming request") tell the test when the request is in flight.
  LOG_LEVEL: 'debug',
};

describe('paygate serve on SIGTERM', () => {
  const children: Array<ReturnType<typeof spawn>> = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });

  let apiKey = '';
  beforeAll(async () => {
    const setup = openDatabase(env.DATABASE_URL);
    await migrateToLatest(setup.db);
    await initWallet(setup.db, systemClock, 'test', parseConfig(env), {
      mnemonic: TEST_MNEMONIC,
      scrypt: CHEAP_SCRYPT,
    });
    apiKey = (await approvedMerchantWithKey(setup.db, systemClock, 'test', { name: 'Shop' })).apiKey;
    await setup.close();
  });

  it('answers the request in flight, refuses new connections, stops and exits 0', async () => {
    const child = spawn(process.execPath, [DEV_BIN, 'serve'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const logs: Array<Record<string, unknown>> = [];
    const waiters: Array<{ test: (l: Record<string, unknown>) => boolean; resolve: () => void }> = [];
    let banner: (url: string) => void;
    const base = new Promise<string>((resolve) => (banner = resolve));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const url = servedUrl(line);
      if (url) banner(url);
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        for (const w of waiters.splice(0)) (w.test(entry) ? w.resolve : () => waiters.push(w))();
      } catch {
        /* other human lines */
      }
    });
    const logged = (test: (l: Record<string, unknown>) => boolean) =>
      logs.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ test, resolve }));

    const url = new URL(await base);
    let refused = '';
    const body = JSON.stringify({ order_id: 'in-flight-1', asset: 'USDT_TRON', amount: '5', expires_in: 600 });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/v1/invoices',
          agent: false,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-api-key': apiKey,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 20));
      void logged((l) => l.msg === 'incoming request' && (l.req as { url?: string })?.url === '/v1/invoices').then(
        async () => {
          child.kill('SIGTERM');
          await logged((l) => typeof l.msg === 'string' && l.msg.startsWith('shutting down'));
          // Shutting down: a new request is refused (connection refused or reset, or 503) while the old one finishes.
          refused = await new Promise<string>((res) =>
            http
              .get({ host: url.hostname, port: url.port, path: '/v1/openapi.json', agent: false }, (r) =>
                res(`answered ${r.statusCode}`),
              )
              .on('error', (e: NodeJS.ErrnoException) => res(e.code ?? 'error')),
          );
          req.end(body.slice(20));
        },
      );
    });

    const r = await answer;
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body).order_id).toBe('in-flight-1');
    expect(['ECONNREFUSED', 'ECONNRESET', 'answered 503']).toContain(refused);
    expect(await exited).toBe(0);
    expect(logs.some((l) => l.msg === 'stopped')).toBe(true);
  });

  it('ends a shutdown held by a stalled upload after SHUTDOWN_TIMEOUT, naming the step and the request, with exit code 1', async () => {
    const child = spawn(process.execPath, [DEV_BIN, 'serve'], {
      env: { ...process.env, ...env, SHUTDOWN_TIMEOUT: '8s' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const errors: string[] = [];
    child.stderr.on('data', (d: Buffer) => errors.push(d.toString()));
    const lines: string[] = [];
    let banner: (url: string) => void;
    const base = new Promise<string>((resolve) => (banner = resolve));
    let sawRequest: () => void;
    const inFlight = new Promise<void>((resolve) => (sawRequest = resolve));
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const url = servedUrl(line);
      if (url) banner(url);
      if (line.includes('"msg":"incoming request"') && line.includes('"method":"POST"')) sawRequest();
    });
    const url = new URL(await base);
    // An answered request, which the list of requests in flight must not name.
    const answered = await fetch(`${url.origin}/v1/invoices/7d3f1e2a-4b5c-4d6e-8f70-1a2b3c4d5e6f`, {
      headers: { 'x-api-key': apiKey, connection: 'close' },
    });
    expect(answered.status).toBe(404);
    // A merchant whose upload stops half-way (its key checked, its body never complete).
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: '/v1/invoices',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': 100, 'x-api-key': apiKey },
    });
    req.on('error', () => undefined);
    req.write('{"order_id":');
    await inFlight;
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 1) console.log(lines.slice(-5).join('\n'), errors.join('').slice(-2000));
    expect(code).toBe(1);
    req.destroy();
    const stuck = lines
      .map((l) =>
        l.startsWith('{')
          ? (JSON.parse(l) as { msg?: string; pending?: string[]; in_flight?: Array<Record<string, unknown>> })
          : {},
      )
      .find((l) => l.msg?.startsWith('shutdown did not finish'));
    expect(stuck?.pending).toContain('api listener');
    expect(stuck?.pending).not.toContain('workers');
    // The request holding it, by route and step: its body never came, so it never reached its handler.
    expect(stuck?.in_flight).toHaveLength(1);
    expect(stuck?.in_flight?.[0]).toMatchObject({
      listener: 'api',
      method: 'POST',
      url: '/v1/invoices',
      step: 'onRequest',
    });
    expect(stuck?.in_flight?.[0]?.ms).toBeGreaterThanOrEqual(0);
  });
});
