/**
 * GET /pay/{invoice_id} on the payment page's listener: the built page's index.html for any
 * invoice id, its files each a route of their own, the strict CSP on them, and a clear 503 naming
 * `npm run build` when the page was never built.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { requireMerchant } from '../../src/merchants/service.js';
import { pageDeps } from '../../src/pay/server.js';
import { createPageInvoice } from '../../src/pay/service.js';
import { api } from '../helpers/http.js';

const UNKNOWN = '0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b';
let ID: string;
let built: TestApp;
let missing: TestApp;

beforeAll(async () => {
  const dir = path.join(tempDir(), 'pay');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>Pay</title><script type="module" src="main.js"></script>',
  );
  writeFileSync(path.join(dir, 'main.js'), 'console.log("page");');
  built = await startTestApp({ pay: { pageDir: dir }, workers: false });
  const s = built.app.services;
  const { merchant } = await built.merchant();
  ID = (
    await createPageInvoice(
      pageDeps(s),
      await requireMerchant(s.db, merchant.merchant_id),
      { order_id: 'page-1', price: '5', expires_in: 900 },
      'test',
    )
  ).invoice.invoice_id;
  missing = await startTestApp({
    pay: { pageDir: path.join(tempDir(), 'absent') },
    workers: false,
    env: { API_RATE_LIMIT_PER_IP: '3' },
  });
});
afterAll(async () => {
  await built?.close();
  await missing?.close();
});

describe('the payment page itself', () => {
  it('answers index.html for an invoice id, in any case, and its files under /pay/', async () => {
    const pay = built.app.payUrl as string;
    for (const id of [ID, ID.toUpperCase()]) {
      const r = await fetch(`${pay}/pay/${id}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await r.text()).toContain('<title>Pay</title>');
    }
    const script = await fetch(`${pay}/pay/main.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    const other = await api(pay, '/pay/other.js');
    expect([other.status, other.body.error.code]).toEqual([404, 'route_not_found']);
    expect((await api(pay, '/')).status).toBe(404);
  });

  it('answers a browser a not-found page in its language for an unknown path or id; the API keeps JSON', async () => {
    const pay = built.app.payUrl as string;
    const browser = {
      accept: 'text/html,application/xhtml+xml,*/*;q=0.8',
      'accept-language': 'ru-RU,ru;q=0.9,en;q=0.5',
    };
    for (const path of [`/pay/${UNKNOWN}`, '/pay/abc', '/pay/x.y', `/pay/v1/invoices/${UNKNOWN}`]) {
      const r = await fetch(`${pay}${path}`, { headers: browser });
      expect([path, r.status]).toEqual([path, 404]);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await r.text();
      expect(html).toContain('<html lang="ru">');
      expect(html).toContain('Страница не найдена');
    }
    // The picker's cookie wins over Accept-Language.
    const picked = await fetch(`${pay}/pay/abc`, { headers: { ...browser, cookie: 'paygate_lang=zh-CN' } });
    expect(await picked.text()).toContain('<html lang="zh-CN">');
    const json = await api(pay, `/pay/v1/invoices/${UNKNOWN}`);
    expect([json.status, json.body.error.code]).toEqual([404, 'invoice_not_found']);
    const slash = await fetch(`${pay}/pay/${ID}/?a=1`, { redirect: 'manual', headers: browser });
    expect([slash.status, slash.headers.get('location')]).toEqual([308, `/pay/${ID}?a=1`]);
  });

  it('says to run npm run build when the page was never built', async () => {
    const r = await api(missing.app.payUrl as string, `/pay/${UNKNOWN}`);
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({
      code: 'service_unavailable',
      message: expect.stringContaining('npm run build'),
    });
  });

  it('limits requests per client address, without a key', async () => {
    const pay = missing.app.payUrl as string;
    const path = '/pay/v1/invoices/00000000-0000-7000-8000-000000000000';
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await api(pay, path));
    // Three a minute: the fourth at the latest (the test above may have spent one) is refused.
    expect(answers[0]!.status).toBe(404);
    expect(answers[3]!.status).toBe(429);
    const limited = answers[3]!;
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
  });
});
