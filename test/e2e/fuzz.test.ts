/**
 * Property tests: random bodies, headers, paths and methods never produce a 500 and never a body
 * outside the error shape. Runs against the real routes (and the probe routes) over HTTP.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, isErrorBody, type ApiResponse } from '../helpers/http.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes } from '../helpers/probe-routes.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { newInvoice, startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';
import { newAddress, newPayout } from '../payouts/fixture.js';
import { postgresDigest } from '../helpers/database.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({
    extraRoutes: probeRoutes,
    env: { API_RATE_LIMIT_PER_IP: '1000000', API_RATE_LIMIT_PER_KEY: '1000000' },
  });
  key = (await t.merchant()).key;
});
afterAll(() => t.close());

const KNOWN_PATHS = [
  '/v1/invoices',
  '/v1/payouts',
  '/v1/addresses',
  '/v1/probe',
  '/v1/invoices/',
  '/v1/payouts/',
  '/v1/probe/',
];
const printable = (max: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max });

const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      order_id: fc.oneof(printable(210), fc.integer()),
      reference: printable(210),
      asset: fc.oneof(fc.constantFrom('USDT_TRON', 'TRX_TRON', 'usdt', 'X_Y', ''), printable(20)),
      amount: fc.oneof(fc.constantFrom('10', '0', '-1', '1e3', '0.0000001', '10.5', ''), printable(110), fc.double()),
      expires_in: fc.oneof(fc.integer({ min: -10, max: 700000 }), fc.double(), printable(5)),
      to_address: printable(110),
      external_user_id: printable(210),
      network: fc.constantFrom('tron', 'eth', ''),
      extra: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: [] },
  ),
);

function assertWellFormed(r: ApiResponse, label: string): void {
  expect(r.status, label).not.toBe(500);
  if (r.status >= 500) expect(r.body?.error?.code, label).not.toBe('internal_error');
  expect(r.headers.get('x-request-id'), label).toBeTruthy();
  if (r.status >= 400) expect(isErrorBody(r.body), `${label}: ${r.text}`).toBe(true);
}

describe('random requests', () => {
  it('random JSON bodies on every POST route', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...KNOWN_PATHS.filter((p) => !p.endsWith('/'))),
        jsonValue,
        fc.boolean(),
        async (path, body, withKey) => {
          const r = await api(t.url, path, { key: withKey ? key : null, body, method: 'POST' });
          assertWellFormed(r, `${path} ${JSON.stringify(body)}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('random raw bodies and content types', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...KNOWN_PATHS),
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.constant('{"a":'),
          fc.constant('{"__proto__":{"x":1}}'),
          fc.constant('{"constructor":{"prototype":{}}}'),
        ),
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/octet-stream',
          'multipart/form-data',
          'application/JSON',
          '',
        ),
        async (path, raw, ct) => {
          const headers: Record<string, string> = ct ? { 'content-type': ct } : {};
          const r = await api(t.url, path, { key, rawBody: raw, headers, method: 'POST' });
          assertWellFormed(r, `${path} ${ct} ${raw}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('random headers, paths and methods', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.webPath(),
          fc.constantFrom(...KNOWN_PATHS).chain((p) => fc.webSegment().map((s) => p + s)),
        ),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
        printable(140),
        fc.oneof(printable(80), fc.constant(key), fc.constant(key.slice(0, 20) + 'x'.repeat(43))),
        async (path, method, requestId, apiKey) => {
          const p = path.startsWith('/') ? path : `/${path}`;
          const r = await api(t.url, p, { method, headers: { 'x-request-id': requestId, 'x-api-key': apiKey } });
          if (method === 'HEAD') {
            expect(r.status).not.toBe(500);
            return;
          }
          assertWellFormed(r, `${method} ${p}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * Every real route (read from the OpenAPI document) with valid bodies mutated one
 * step at a time, odd encodings and methods. Besides the shape, a refused request must change
 * nothing: the app's connection counts every row it writes (SQLite total_changes(); on PostgreSQL
 * a digest of every row), and that meter may move only for an answer below 400.
 */
describe('mutated requests on the real routes change nothing when refused', () => {
  let w: InvoiceTestApp;
  let wKey: string;
  let perUserKey: string;
  let allowed: string;
  let posts: string[];
  const changes = async (): Promise<{ n: number | string }> => {
    const { sqlite } = w.app.database;
    if (sqlite) return sqlite.prepare('select total_changes() as n').get() as { n: number };
    return { n: await postgresDigest(w.app.database) };
  };

  beforeAll(async () => {
    w = await startInvoiceApp({ env: { API_RATE_LIMIT_PER_IP: '1000000', API_RATE_LIMIT_PER_KEY: '1000000' } });
    const m = await w.merchant({ name: 'Fuzzed' });
    wKey = m.key;
    perUserKey = (await w.merchant({ name: 'Fuzzed per user', addressMode: 'per_user' })).key;
    allowed = newAddress();
    const { db, clock, catalog } = w.app.services;
    await creditMerchant(db, clock, 'test', catalog, m.merchant.merchant_id, {
      asset: 'USDT_TRON',
      amount: '1000',
      memo: 'fuzz funding',
    });
    await addToWhitelist(db, clock, 'test', catalog, m.merchant.merchant_id, {
      asset: 'USDT_TRON',
      address: allowed,
      delay: '0',
    });
    // A key's last use is stamped once a minute by the first request it authenticates, refused or
    // not (the test clock stands still): stamped here first, so the meter below counts only what
    // the requests themselves would write.
    for (const key of [wKey, perUserKey]) await api(w.url, `/v1/invoices/${randomUUID()}`, { key });
    await vi.waitFor(async () => {
      const unstamped = await db.selectFrom('api_keys').select('key_id').where('last_used_at', 'is', null).execute();
      expect(unstamped).toEqual([]);
    });
    const doc = (await api(w.url, '/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    posts = Object.entries(doc.paths)
      .filter(([, ops]) => 'post' in ops)
      .map(([p]) => p);
  });
  afterAll(() => w.close());

  const keyFor = (path: string) => (path === '/v1/addresses' ? perUserKey : wKey);
  const validBody = (path: string): Record<string, unknown> => {
    if (path === '/v1/invoices') return newInvoice();
    if (path === '/v1/payouts') return newPayout(allowed, { amount: '0.5' });
    if (path === '/v1/addresses')
      return { external_user_id: `u-${Math.random().toString(36).slice(2)}`, network: 'tron' };
    return {};
  };

  type Mutation = { kind: 'drop' | 'set' | 'add'; field: number; value: unknown } | { kind: 'replace'; value: unknown };
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({
      kind: fc.constantFrom('drop' as const, 'set' as const, 'add' as const),
      field: fc.nat(),
      value: fc.jsonValue({ maxDepth: 2 }),
    }),
    fc.record({ kind: fc.constant('replace' as const), value: fc.jsonValue({ maxDepth: 2 }) }),
  );
  const mutate = (body: Record<string, unknown>, m: Mutation): unknown => {
    if (m.kind === 'replace') return m.value;
    const keys = Object.keys(body);
    const field = keys[m.field % keys.length]!;
    if (m.kind === 'drop') {
      const { [field]: _dropped, ...rest } = body;
      return rest;
    }
    if (m.kind === 'set') return { ...body, [field]: m.value };
    return { ...body, [`x${m.field % 7}`]: m.value };
  };
  const encodings = fc.constantFrom(
    { ct: 'application/json' },
    { ct: 'application/json; charset=utf-8' },
    { ct: 'application/json; charset=utf-16le', utf16: true },
    { ct: 'application/json', encoding: 'gzip' },
    { ct: 'application/json', encoding: 'deflate' },
    { ct: 'application/json', bom: true },
    { ct: 'application/merge-patch+json' },
    { ct: 'text/json' },
  );

  it('refused mutated bodies, encodings and methods leave the database as it was', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...posts),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        encodings,
        fc.constantFrom('POST', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE'),
        async (path, ms, enc, method) => {
          const body = ms.reduce<unknown>(
            (b, m) =>
              typeof b === 'object' && b !== null && !Array.isArray(b) ? mutate(b as Record<string, unknown>, m) : b,
            validBody(path),
          );
          const text = JSON.stringify(body) ?? 'null';
          const raw = enc.utf16 ? Buffer.from(text, 'utf16le') : enc.bom ? `\uFEFF${text}` : text;
          const headers: Record<string, string> = {
            'content-type': enc.ct,
            ...(enc.encoding ? { 'content-encoding': enc.encoding } : {}),
          };
          const before = (await changes()).n;
          const r = await api(w.url, path, { key: keyFor(path), rawBody: raw, headers, method });
          const label = `${method} ${path} ${JSON.stringify(enc)} ${text}`;
          assertWellFormed(r, label);
          if (r.status >= 400) expect((await changes()).n, `${label} → ${r.status} ${r.text}`).toBe(before);
          else expect(isErrorBody(r.body), label).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a refused repeat of a created record changes nothing either', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...posts), mutation, async (path, m) => {
        const body = validBody(path);
        const created = (await changes()).n;
        const first = await api(w.url, path, { key: keyFor(path), body });
        expect(first.status, first.text).toBeLessThan(300);
        const before = (await changes()).n;
        expect(before, 'the meter sees a write').not.toBe(created);
        const r = await api(w.url, path, { key: keyFor(path), body: mutate(body, m) });
        assertWellFormed(r, `${path} ${JSON.stringify(m)}`);
        if (r.status >= 400) expect((await changes()).n, `${path} ${JSON.stringify(m)} → ${r.text}`).toBe(before);
      }),
      { numRuns: 100 },
    );
  });
});
