/**
 * deploy/nginx/paygate-pay.conf for real (nginx-harness.ts: nginx on loopback ports with a
 * self-signed certificate) in front of the payment page's listener of the real app. Only the listen
 * ports, the certificate paths and the upstream address of the shipped file are rewritten.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageBody, startPayApp, type PayTestApp } from '../pay/fixture.js';
import { nginxBin, type RunningNginx, startNginx } from './nginx-harness.js';

const CONF = path.resolve(import.meta.dirname, '../../deploy/nginx/paygate-pay.conf');

if (!nginxBin)
  console.warn(
    'SKIPPED test/deploy/nginx-pay.test.ts: nginx is not installed (apt-get install -y nginx; .ci/run installs it)',
  );

describe.skipIf(!nginxBin)('nginx in front of the payment page (deploy/nginx/paygate-pay.conf)', () => {
  let t: PayTestApp;
  let nginx: RunningNginx;
  const viaHttps: RunningNginx['viaHttps'] = (...a) => nginx.viaHttps(...a);

  beforeAll(async () => {
    t = await startPayApp();
    const upstream = new URL(t.pay).host;
    nginx = await startNginx(
      CONF,
      (site) => site.replace(/server 127\.0\.0\.1:8082;/, `server ${upstream};`),
      '/pay/v1/openapi.json',
    );
  });

  afterAll(async () => {
    await nginx?.stop();
    await t?.close();
  });

  it('serves the page API over HTTPS: the view and the choice of the token', async () => {
    const { merchant } = await t.merchant();
    const created = await t.createPage(merchant.merchant_id, pageBody({ price: '9' }));
    const id = created.body.invoice_id as string;
    const view = await viaHttps(`/pay/v1/invoices/${id}`);
    expect(view.status).toBe(200);
    expect(JSON.parse(view.body).price).toBe('9');
    expect(view.headers['strict-transport-security']).toMatch(/max-age=/);
    expect(view.headers['content-security-policy']).toContain("script-src 'self'");
    const chosen = await viaHttps(
      `/pay/v1/invoices/${id}/asset`,
      { method: 'POST', headers: { 'Content-Type': 'application/json' } },
      JSON.stringify({ asset: 'USDT_TRON' }),
    );
    expect(chosen.status).toBe(201);
    expect(JSON.parse(chosen.body).address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect((await viaHttps('/pay/v1/openapi.json')).status).toBe(200);
  });

  it('answers 404 for everything outside /pay/: the merchant API, admin, cabinet, health, the root', async () => {
    for (const p of [
      '/v1/openapi.json',
      '/v1/invoices',
      '/admin/v1/merchants',
      '/cabinet/v1',
      '/healthz',
      '/metrics',
      '/',
      '/pay',
      '/pay/../v1/openapi.json',
      '/pay/%2e%2e/metrics',
    ]) {
      const r = await viaHttps(p);
      expect(r.status, p).toBe(404);
      expect(JSON.parse(r.body).error.code, p).toBe('route_not_found');
    }
  });

  it('answers plain HTTP with 308 to the https:// location of the same path, without proxying it', async () => {
    const r = await nginx.viaHttp('/pay/v1/invoices?x=1', { headers: { Host: 'attacker.example' } });
    expect(r.status).toBe(308);
    expect(r.headers.location).toBe('https://checkout.example.com/pay/v1/invoices?x=1');
    expect(r.headers['x-request-id']).toBeUndefined();
  });
});
