/**
 * Property tests: random bodies, headers, paths and methods never produce a 500 and never a body
 * outside the error shape. Runs against the real routes (and the probe routes) over HTTP.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, isErrorBody, type ApiResponse } from '../helpers/http.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes } from '../helpers/probe-routes.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({ extraRoutes: probeRoutes, env: { API_RATE_LIMIT_PER_IP: '1000000', API_RATE_LIMIT_PER_KEY: '1000000' } });
  key = (await t.merchant()).key;
});
afterAll(() => t.close());

const KNOWN_PATHS = ['/v1/invoices', '/v1/payouts', '/v1/addresses', '/v1/probe', '/v1/invoices/', '/v1/payouts/', '/v1/probe/'];
const printable = (max: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max });

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
      fc.asyncProperty(fc.constantFrom(...KNOWN_PATHS.filter((p) => !p.endsWith('/'))), jsonValue, fc.boolean(), async (path, body, withKey) => {
        const r = await api(t.url, path, { key: withKey ? key : null, body, method: 'POST' });
        assertWellFormed(r, `${path} ${JSON.stringify(body)}`);
      }),
      { numRuns: 300 },
    );
  });

  it('random raw bodies and content types', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...KNOWN_PATHS),
        fc.oneof(fc.string({ maxLength: 200 }), fc.constant('{"a":'), fc.constant('{"__proto__":{"x":1}}'), fc.constant('{"constructor":{"prototype":{}}}')),
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/octet-stream', 'multipart/form-data', 'application/JSON', ''),
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
        fc.oneof(fc.webPath(), fc.constantFrom(...KNOWN_PATHS).chain((p) => fc.webSegment().map((s) => p + s))),
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
