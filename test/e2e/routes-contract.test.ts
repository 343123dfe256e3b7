/**
 * The HTTP contract on every real /v1 route, with the routes read from the served
 * OpenAPI document so a route added later is covered without editing this file:
 * - 401 without or with a wrong key, 413 for a body over 16 KiB, 415 for a non-JSON body, 429 past
 *   the per-key limit, and the x-ratelimit-* headers, the same on every route;
 * - every route refuses every other merchant's ids (invoices, payouts, order ids, references,
 *   external user ids).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditMerchant } from '../../src/ledger/operator.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { api, isErrorBody, type ApiResponse } from '../helpers/http.js';
import { newAddress, newPayout } from '../payouts/fixture.js';
import { newInvoice, startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';

const SOME_ID = '7d3f1e2a-4b5c-4d6e-8f70-1a2b3c4d5e6f';

interface Route {
  method: string;
  path: string;
  /** The path with {id} filled in. */
  url: (id?: string) => string;
}

async function realRoutes(baseUrl: string): Promise<Route[]> {
  const doc = (await api(baseUrl, '/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  const routes: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      routes.push({ method: method.toUpperCase(), path, url: (id = SOME_ID) => path.replace(/\{[^}]+\}/g, id) });
    }
  }
  return routes;
}

const expectError = (r: ApiResponse, status: number, code: string, label: string) => {
  expect(r.status, `${label}: ${r.text}`).toBe(status);
  expect(isErrorBody(r.body), label).toBe(true);
  expect(r.body.error.code, label).toBe(code);
  expect(r.headers.get('x-request-id'), label).toBeTruthy();
};

const expectRateHeaders = (r: ApiResponse, limit: string, label: string) => {
  expect(r.headers.get('x-ratelimit-limit'), label).toBe(limit);
  expect(r.headers.get('x-ratelimit-remaining'), label).toMatch(/^\d+$/);
  expect(r.headers.get('x-ratelimit-reset'), label).toMatch(/^\d+$/);
};

describe('every real route', () => {
  let t: InvoiceTestApp;
  let merchantId: string;
  let routes: Route[];
  beforeAll(async () => {
    t = await startInvoiceApp({ env: { API_RATE_LIMIT_PER_IP: '1000', API_RATE_LIMIT_PER_KEY: '3' } });
    merchantId = (await t.merchant()).merchant.merchant_id;
    routes = await realRoutes(t.url);
  });
  afterAll(() => t.close());

  it('covers the routes of the spec', () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /v1/invoices',
        'GET /v1/invoices/{id}',
        'POST /v1/payouts',
        'GET /v1/payouts/{id}',
        'POST /v1/addresses',
      ]),
    );
  });

  it('answers 401, 413, 415 and 429 with the rate headers the same way', async () => {
    for (const route of routes) {
      const label = `${route.method} ${route.path}`;
      const send = (opts: Parameters<typeof api>[2] = {}) => api(t.url, route.url(), { method: route.method, ...opts });
      const withBody = route.method !== 'GET' && route.method !== 'DELETE';
      // Keys of the route's own: the per-key limit counts every authenticated request.
      const key = await t.key(merchantId);

      expectError(await send({ ...(withBody ? { body: {} } : {}) }), 401, 'unauthorized', `${label} without key`);
      const wrong = await send({ key: `${key.slice(0, 20)}${'x'.repeat(43)}`, ...(withBody ? { body: {} } : {}) });
      expectError(wrong, 401, 'unauthorized', `${label} wrong key`);
      expectRateHeaders(wrong, '1000', `${label} wrong key`);

      if (withBody) {
        expectError(
          await send({
            key,
            rawBody: JSON.stringify({ pad: 'x'.repeat(17 * 1024) }),
            headers: { 'content-type': 'application/json' },
          }),
          413,
          'bad_request',
          `${label} 17 KiB`,
        );
        expectError(
          await send({ key, rawBody: 'order_id=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
          415,
          'bad_request',
          `${label} form`,
        );
      }
      const fresh = await t.key(merchantId);
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await send({ key: fresh, ...(withBody ? { body: {} } : {}) });
        expect(r.status, label).not.toBe(429);
        expectRateHeaders(r, '3', label);
        seen.push(r.headers.get('x-ratelimit-remaining')!);
      }
      expect(seen, label).toEqual(['2', '1', '0']);
      const limited = await send({ key: fresh, ...(withBody ? { body: {} } : {}) });
      expectError(limited, 429, 'rate_limited', `${label} past the limit`);
      expect(limited.headers.get('retry-after'), label).toMatch(/^\d+$/);
      expectRateHeaders(limited, '3', label);
    }
  });
});

describe("other merchants' ids", () => {
  let t: InvoiceTestApp;
  beforeAll(async () => {
    t = await startInvoiceApp();
  });
  afterAll(() => t.close());

  it('are refused on every route: a merchant never sees or reaches another merchant’s records', async () => {
    const { db, clock, catalog } = t.app.services;
    const a = await t.merchant({ name: 'A', addressMode: 'per_user' });
    const b = await t.merchant({ name: 'B', addressMode: 'per_user' });
    const a2 = await t.merchant({ name: 'A2' });
    const b2 = await t.merchant({ name: 'B2' });
    const fundAndAllow = async (id: string) => {
      const to = newAddress();
      await creditMerchant(db, clock, 'test', catalog, id, { asset: 'USDT_TRON', amount: '100', memo: 'funding' });
      await addToWhitelist(db, clock, 'test', catalog, id, { asset: 'USDT_TRON', address: to, delay: '0' });
      return to;
    };
    const aTo = await fundAndAllow(a2.merchant.merchant_id);
    await fundAndAllow(b2.merchant.merchant_id);

    // A's records: an invoice, a payout, a permanent address.
    const invoice = (await api(t.url, '/v1/invoices', { key: a2.key, body: newInvoice({ order_id: 'shared-order' }) }))
      .body;
    const payoutBody = newPayout(aTo, { reference: 'shared-ref', amount: '5' });
    const payout = (await api(t.url, '/v1/payouts', { key: a2.key, body: payoutBody })).body;
    const address = (
      await api(t.url, '/v1/addresses', { key: a.key, body: { external_user_id: 'shared-user', network: 'tron' } })
    ).body;
    expect([invoice.invoice_id, payout.payout_id, address.address].every(Boolean)).toBe(true);

    // Every GET route with an id, with every id A owns, in any case: 404 for B.
    const routes = await realRoutes(t.url);
    const ids = [
      invoice.invoice_id,
      payout.payout_id,
      invoice.invoice_id.toUpperCase(),
      payout.payout_id.toUpperCase(),
    ];
    for (const route of routes.filter((r) => r.path.includes('{'))) {
      for (const id of ids) {
        for (const k of [b.key, b2.key]) {
          const r = await api(t.url, route.url(id), { method: route.method, key: k });
          expect(r.status, `${route.method} ${route.url(id)}`).toBe(404);
          expect(isErrorBody(r.body)).toBe(true);
          expect(r.text).not.toContain(a2.merchant.merchant_id);
        }
      }
    }
    // A's order id, reference and user id name B's own records, never A's.
    const bInvoice = await api(t.url, '/v1/invoices', { key: b2.key, body: newInvoice({ order_id: 'shared-order' }) });
    expect(bInvoice.status).toBe(201);
    expect(bInvoice.body.invoice_id).not.toBe(invoice.invoice_id);
    expect(bInvoice.body.address).not.toBe(invoice.address);
    const bPayout = await api(t.url, '/v1/payouts', { key: b2.key, body: { ...payoutBody } });
    expect(bPayout.body.payout_id).not.toBe(payout.payout_id);
    expect(bPayout.text).not.toContain(payout.payout_id);
    const bAddress = await api(t.url, '/v1/addresses', {
      key: b.key,
      body: { external_user_id: 'shared-user', network: 'tron' },
    });
    expect(bAddress.status).toBe(200);
    expect(bAddress.body.address).not.toBe(address.address);
    // A's records are untouched.
    expect((await api(t.url, `/v1/payouts/${payout.payout_id}`, { key: a2.key })).body).toMatchObject({
      status: payout.status,
      amount: '5',
    });
    expect((await api(t.url, `/v1/invoices/${invoice.invoice_id}`, { key: a2.key })).body).toMatchObject({
      status: 'created',
      order_id: 'shared-order',
    });
  });
});
