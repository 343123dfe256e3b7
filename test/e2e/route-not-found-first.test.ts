/**
 * The check order (docs/adr/0007-http-check-order.md) starts with the route: a request with no
 * route for its method and path answers 404 route_not_found whatever its body, and its body is
 * never read (an unauthenticated client never gets JSON parsed). A body fault is bad_request only
 * on a real route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, isErrorBody } from '../helpers/http.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes } from '../helpers/probe-routes.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ extraRoutes: probeRoutes });
  key = (await t.merchant()).key;
});
afterAll(() => t.close());

const json = { 'content-type': 'application/json' };

describe('an unknown method and path with a body', () => {
  it('answers 404 route_not_found, not a body fault, with or without a key', async () => {
    const cases: Array<[string, string, Parameters<typeof api>[2]]> = [
      ['POST', '/v1/nowhere', { rawBody: '{"order_id": ', headers: json }],
      ['POST', '/v1/invoice', { rawBody: '{bad', headers: json }],
      ['PUT', '/v1/invoices', { rawBody: JSON.stringify({ pad: 'x'.repeat(17 * 1024) }), headers: json }],
      [
        'PATCH',
        '/v1/payouts/7d3f1e2a-4b5c-4d6e-8f70-1a2b3c4d5e6f',
        { rawBody: '{}', headers: { ...json, 'content-encoding': 'gzip' } },
      ],
      ['DELETE', '/v1/probe/7d3f1e2a-4b5c-4d6e-8f70-1a2b3c4d5e6f', { rawBody: '{bad', headers: json }],
      ['POST', '/admin/v1/merchants', { rawBody: '', headers: json }],
    ];
    for (const [method, path, req] of cases) {
      for (const k of [undefined, key]) {
        const label = `${method} ${path} ${k ? 'with key' : 'without key'}`;
        const r = await api(t.url, path, { method, ...req, ...(k ? { key: k } : {}) });
        expect(r.status, `${label}: ${r.text}`).toBe(404);
        expect(isErrorBody(r.body), label).toBe(true);
        expect(r.body.error.code, label).toBe('route_not_found');
        expect(r.headers.get('x-request-id'), label).toBeTruthy();
        expect(r.headers.get('x-ratelimit-limit'), label).toMatch(/^\d+$/);
      }
    }
  });

  it('still answers body faults on a real route', async () => {
    const r = await api(t.url, '/v1/probe', { key, rawBody: '{bad', headers: json });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('bad_request');
  });
});
