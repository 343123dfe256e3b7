/**
 * The kept-answer lane (http/kept-lane.ts) answers a kept read before fastify only when every check
 * of DESIGN.md §10 passes, with fastify's bytes and headers, counting the request once per IP and
 * per key; every other request reaches fastify uncounted and gets fastify's answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptLaneOf } from '../../src/http/kept-lane.js';
import { approvedMerchantWithKey, revokeKey } from '../../src/keys/service.js';
import { keyIdOf } from '../../src/keys/format.js';
import { changeMerchant } from '../../src/merchants/service.js';
import { api, rawRequest, type ApiResponse } from '../helpers/http.js';
import { newInvoice, startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';

/** Headers whose values differ between any two answers. */
const PER_ANSWER = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
const headersOf = (r: ApiResponse) => Object.fromEntries([...r.headers].filter(([name]) => !PER_ANSWER.has(name)));

async function merchant(t: InvoiceTestApp, name: string) {
  return approvedMerchantWithKey(t.app.services.db, t.clock, 'test', { name });
}

describe('the kept-answer lane', () => {
  let t: InvoiceTestApp;
  const lane = () => keptLaneOf(t.app.http.server)!;
  const get = (key: string | null, path: string, headers?: Record<string, string>) => api(t.url, path, { key, headers });

  beforeAll(async () => {
    t = await startInvoiceApp({ env: { API_RATE_LIMIT_PER_KEY: '6' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a repeated read itself, with the bytes and headers fastify gave the first', async () => {
    const m = await merchant(t, 'lane shop');
    const created = await api(t.url, '/v1/invoices', { key: m.apiKey, body: newInvoice() });
    const id = created.body.invoice_id as string;
    const before = lane().answered;
    const first = await get(m.apiKey, `/v1/invoices/${id}`);
    expect(lane().answered).toBe(before);
    const again = await get(m.apiKey, `/v1/invoices/${id.toUpperCase()}`, { 'x-request-id': 'lane-req-1' });
    expect(lane().answered).toBe(before + 1);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(headersOf(again)).toEqual(headersOf(first));
    expect(Object.keys(headersOf(first)).sort()).toEqual(['connection', 'content-length', 'content-type', 'keep-alive', 'x-ratelimit-limit']);
    expect(again.headers.get('x-request-id')).toBe('lane-req-1');
    // Counted for the key like any request: 6 a minute, creation and first read took two.
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(again.headers.get('x-ratelimit-remaining')).toBe('3');
    expect(again.headers.get('x-ratelimit-reset')).toMatch(/^[0-9]+$/);
  });

  it('leaves to fastify, uncounted, what it would not admit: the limit reached, a foreign or wrong key', async () => {
    const m = await merchant(t, 'limited shop');
    const other = await merchant(t, 'other shop');
    const created = await api(t.url, '/v1/invoices', { key: m.apiKey, body: newInvoice() });
    const path = `/v1/invoices/${created.body.invoice_id}`;
    const seen: ApiResponse[] = [];
    for (let i = 0; i < 6; i++) seen.push(await get(m.apiKey, path));
    // 1 creation + 5 reads fill the key's 6; the sixth read is fastify's 429 with Retry-After.
    expect(seen.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(seen.slice(0, 5).map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0']);
    expect(seen[5]!.status).toBe(429);
    expect(seen[5]!.body.error.code).toBe('rate_limited');
    expect(seen[5]!.headers.get('retry-after')).toMatch(/^[0-9]+$/);

    const answered = lane().answered;
    const foreign = await get(other.apiKey, path);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('invoice_not_found');
    const wrong = await get(`${m.apiKey.slice(0, -1)}${m.apiKey.endsWith('A') ? 'B' : 'A'}`, path);
    expect(wrong.status).toBe(401);
    const none = await get(null, path);
    expect(none.status).toBe(401);
    expect(lane().answered).toBe(answered);
    // The other merchant's read counted for its own key only.
    expect(foreign.headers.get('x-ratelimit-remaining')).toBe('5');
  });

  it('stops answering for a key revoked or a merchant disabled after it answered them', async () => {
    const m = await merchant(t, 'revoked shop');
    const created = await api(t.url, '/v1/invoices', { key: m.apiKey, body: newInvoice() });
    const path = `/v1/invoices/${created.body.invoice_id}`;
    await get(m.apiKey, path);
    const answered = lane().answered;
    expect((await get(m.apiKey, path)).status).toBe(200);
    expect(lane().answered).toBe(answered + 1);
    await revokeKey(t.app.services.db, t.clock, 'test', keyIdOf(m.apiKey));
    const refused = await get(m.apiKey, path);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');

    const d = await merchant(t, 'disabled shop');
    const mine = await api(t.url, '/v1/invoices', { key: d.apiKey, body: newInvoice() });
    await get(d.apiKey, `/v1/invoices/${mine.body.invoice_id}`);
    expect((await get(d.apiKey, `/v1/invoices/${mine.body.invoice_id}`)).status).toBe(200);
    await changeMerchant(t.app.services.db, t.clock, 'test', d.merchant.merchant_id, 'disable');
    const disabled = await get(d.apiKey, `/v1/invoices/${mine.body.invoice_id}`);
    expect(disabled.status).toBe(403);
    expect(disabled.body.error.code).toBe('merchant_disabled');
    expect(lane().answered).toBe(answered + 2);
  });

  it('leaves a kept read past the trust window or with an Expect header to fastify', async () => {
    const m = await merchant(t, 'trusted shop');
    const created = await api(t.url, '/v1/invoices', { key: m.apiKey, body: newInvoice() });
    const path = `/v1/invoices/${created.body.invoice_id}`;
    const first = await get(m.apiKey, path);
    const answered = lane().answered;
    const expectation = await rawRequest(t.url, `GET ${path} HTTP/1.1\r\nHost: a\r\nExpect: something\r\nX-Api-Key: ${m.apiKey}\r\n\r\n`);
    expect(expectation).toMatch(/^HTTP\/1\.1 417 /);
    // Past the 60 s a verified key is trusted, its row is read again (fastify's path); then trusted anew.
    t.clock.advance(61_000);
    const later = await get(m.apiKey, path);
    expect(later.text).toBe(first.text);
    expect(lane().answered).toBe(answered);
    expect((await get(m.apiKey, path)).text).toBe(first.text);
    expect(lane().answered).toBe(answered + 1);
  });

  it('times its answers in the same histogram as fastify', async () => {
    const m = await merchant(t, 'metered shop');
    const created = await api(t.url, '/v1/invoices', { key: m.apiKey, body: newInvoice() });
    const count = async () => {
      const text = await t.app.metrics.registry.getSingleMetricAsString('paygate_http_request_duration_seconds');
      const line = text.split('\n').find((l) => l.startsWith('paygate_http_request_duration_seconds_count{') && l.includes('route="/v1/invoices/:id"') && l.includes('status="200"'));
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const before = await count();
    const answered = lane().answered;
    await get(m.apiKey, `/v1/invoices/${created.body.invoice_id}`);
    await get(m.apiKey, `/v1/invoices/${created.body.invoice_id}`);
    expect(lane().answered).toBe(answered + 1);
    expect(await count()).toBe(before + 2);
  });
});

// Both forms of TRUST_PROXY: the proxy's address (compiled by proxy-addr) and a hop count (our function).
describe.each(['127.0.0.1', '1'])('the kept-answer lane behind a proxy (TRUST_PROXY=%s)', (trustProxy) => {
  let t: InvoiceTestApp;

  beforeAll(async () => {
    t = await startInvoiceApp({ env: { TRUST_PROXY: trustProxy, API_RATE_LIMIT_PER_IP: '5' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts each forwarded client in its own bucket, as fastify does', async () => {
    const m = await approvedMerchantWithKey(t.app.services.db, t.clock, 'test', { name: 'proxied shop' });
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const created = await api(t.url, '/v1/invoices', { key: m.apiKey, body: newInvoice(), headers: from('203.0.113.7') });
    const path = `/v1/invoices/${created.body.invoice_id}`;
    const lane = keptLaneOf(t.app.http.server)!;
    const before = lane.answered;
    const a = [];
    for (let i = 0; i < 4; i++) a.push(await api(t.url, path, { key: m.apiKey, headers: from('203.0.113.7') }));
    expect(lane.answered).toBe(before + 3);
    expect(a.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['3', '2', '1', '0']);
    expect((await api(t.url, path, { key: m.apiKey, headers: from('203.0.113.7') })).status).toBe(429);
    const b = await api(t.url, path, { key: m.apiKey, headers: from('198.51.100.9') });
    expect(b.status).toBe(200);
    expect(b.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(lane.answered).toBe(before + 4);
  });
});
