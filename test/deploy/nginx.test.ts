/**
 * deploy/nginx/paygate.conf for real (nginx-harness.ts: nginx on loopback ports with a self-signed
 * certificate) in front of the real app. Only the listen ports, the certificate paths and the
 * upstream address of the shipped file are rewritten.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startInvoiceApp } from '../invoices/fixture.js';
import { nginxBin, SITE_NAME as NAME, type RunningNginx, startNginx } from './nginx-harness.js';

const CONF = path.resolve(import.meta.dirname, '../../deploy/nginx/paygate.conf');

if (!nginxBin)
  console.warn(
    'SKIPPED test/deploy/nginx.test.ts: nginx is not installed (apt-get install -y nginx; .ci/run installs it)',
  );

describe.skipIf(!nginxBin)('nginx in front of paygate (deploy/nginx/paygate.conf)', () => {
  let t: TestApp;
  let nginx: RunningNginx;

  const viaHttps: RunningNginx['viaHttps'] = (...a) => nginx.viaHttps(...a);

  beforeAll(async () => {
    t = await startInvoiceApp();
    const upstream = new URL(t.url).host;
    nginx = await startNginx(CONF, (site) => site.replace(/server 127\.0\.0\.1:8080;/, `server ${upstream};`));
  });

  afterAll(async () => {
    await nginx?.stop();
    await t?.close();
  });

  it('serves /v1 over HTTPS: the OpenAPI document and an authenticated invoice creation', async () => {
    const doc = await viaHttps('/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(JSON.parse(doc.body).openapi).toBe('3.1.0');
    expect(doc.headers['strict-transport-security']).toMatch(/max-age=/);

    const { key } = await t.merchant();
    const body = JSON.stringify({ order_id: 'via-proxy-1', asset: 'USDT_TRON', amount: '12.5', expires_in: 600 });
    const r = await viaHttps(
      '/v1/invoices',
      { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' } },
      body,
    );
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body).address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(r.headers['x-request-id']).toBeTruthy();
    const again = await viaHttps(`/v1/invoices/${JSON.parse(r.body).invoice_id}`, { headers: { 'X-Api-Key': key } });
    expect(again.status).toBe(200);
  });

  it('answers 404 for everything outside /v1: admin, cabinet, health, metrics, the root, dot tricks', async () => {
    for (const p of [
      '/admin/v1/merchants',
      '/cabinet/v1',
      '/healthz',
      '/readyz',
      '/metrics',
      '/',
      '/v1',
      '/v2/invoices',
      '/v1/../admin/v1',
      '/v1/%2e%2e/metrics',
      '//admin/v1',
    ]) {
      const r = await viaHttps(p);
      expect(r.status, p).toBe(404);
      expect(JSON.parse(r.body).error.code, p).toBe('route_not_found');
    }
  });

  it('answers plain HTTP with 308 to the https:// location of the same path, without proxying it', async () => {
    for (const method of ['GET', 'POST']) {
      const r = await nginx.viaHttp('/v1/invoices?page=2', { method, headers: { Host: 'attacker.example' } });
      expect(r.status).toBe(308);
      expect(r.headers.location).toBe(`https://${NAME}/v1/invoices?page=2`);
      // paygate sets X-Request-Id on every answer: this one never reached it.
      expect(r.headers['x-request-id']).toBeUndefined();
    }
    const r = await nginx.viaHttp('/metrics');
    expect(r.status).toBe(308);
    expect(r.headers.location).toBe(`https://${NAME}/metrics`);
  });
});
