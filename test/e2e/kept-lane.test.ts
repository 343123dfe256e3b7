/**
 * The kept-answer lane (http/kept-lane.ts) answers a kept read before fastify only when every check
 * of DESIGN.md §10 passes, with fastify's bytes and headers, counting the request once per IP and
 * per key; every other request reaches fastify uncounted and gets fastify's answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptLaneOf } from '../../src/http/kept-lane.js';
import { approvedMerchantWithKey } from '../../src/keys/service.js';
import { api, type ApiResponse } from '../helpers/http.js';
import { newInvoice, startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';

/** Headers every answer carries, compared between the lane and fastify. */
const SAME = ['content-type', 'content-length', 'x-ratelimit-limit', 'connection', 'keep-alive'];

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
    for (const h of SAME) expect(again.headers.get(h)).toBe(first.headers.get(h));
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

describe('the kept-answer lane behind a proxy', () => {
  let t: InvoiceTestApp;

  beforeAll(async () => {
    t = await startInvoiceApp({ env: { TRUST_PROXY: '127.0.0.1', API_RATE_LIMIT_PER_IP: '5' } });
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
