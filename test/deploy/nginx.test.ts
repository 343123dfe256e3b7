/**
 * deploy/nginx/paygate.conf for real: nginx (the Debian package) runs as this user with its own
 * prefix, pid and temp paths under a temp dir, on loopback ports, with a self-signed certificate
 * made by openssl, in front of the real app. Only the listen ports, the certificate paths and the
 * upstream address of the shipped file are rewritten.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir, type TestApp } from '../helpers/app.js';
import { startInvoiceApp } from '../invoices/fixture.js';

const CONF = path.resolve(import.meta.dirname, '../../deploy/nginx/paygate.conf');
const NAME = 'pay.example.com';

function findNginx(): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin']) {
    const candidate = path.join(dir, 'nginx');
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}
const nginxBin = findNginx();
if (!nginxBin)
  console.warn(
    'SKIPPED test/deploy/nginx.test.ts: nginx is not installed (apt-get install -y nginx; .ci/run installs it)',
  );

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(mod: typeof http | typeof https, opts: https.RequestOptions, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = mod.request({ host: '127.0.0.1', ...opts, headers: { Host: NAME, ...opts.headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.skipIf(!nginxBin)('nginx in front of paygate (deploy/nginx/paygate.conf)', () => {
  let t: TestApp;
  let nginx: ChildProcess;
  let cert: string;
  let httpPort: number;
  let httpsPort: number;
  const dir = tempDir('paygate-nginx-');

  const viaHttps = (p: string, opts: https.RequestOptions = {}, body?: string) =>
    request(https, { port: httpsPort, path: p, servername: NAME, ca: cert, ...opts }, body);

  beforeAll(async () => {
    t = await startInvoiceApp();
    const upstream = new URL(t.url).host;
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${NAME}`,
        '-addext',
        `subjectAltName=DNS:${NAME}`,
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    httpPort = await freePort();
    httpsPort = await freePort();
    const site = readFileSync(CONF, 'utf8')
      .replace(/^\s*listen \[::\]:.*$/gm, '')
      .replace(/listen 80;/, `listen 127.0.0.1:${httpPort};`)
      .replace(/listen 443 ssl;/, `listen 127.0.0.1:${httpsPort} ssl;`)
      .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${path.join(dir, 'cert.pem')};`)
      .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${path.join(dir, 'key.pem')};`)
      .replace(/server 127\.0\.0\.1:8080;/, `server ${upstream};`);
    writeFileSync(path.join(dir, 'paygate.conf'), site);
    for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
      mkdirSync(path.join(dir, 'tmp', d), { recursive: true });
    const temp = (kind: string) =>
      `${kind}_temp_path ${path.join(dir, 'tmp', kind === 'client_body' ? 'body' : kind)};`;
    writeFileSync(
      path.join(dir, 'nginx.conf'),
      [
        // As root (CI containers) the workers would switch to `nobody`, who cannot enter the temp dir.
        process.getuid?.() === 0 ? 'user root;' : '',
        'daemon off;',
        'worker_processes 1;',
        `pid ${path.join(dir, 'nginx.pid')};`,
        `error_log ${path.join(dir, 'error.log')} warn;`,
        'events { worker_connections 64; }',
        'http {',
        `  access_log ${path.join(dir, 'access.log')};`,
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${temp(k)}`),
        `  include ${path.join(dir, 'paygate.conf')};`,
        '}',
      ].join('\n'),
    );
    const args = ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')];
    execFileSync(nginxBin as string, [...args, '-t'], { stdio: 'pipe' });
    nginx = spawn(nginxBin as string, args, { stdio: 'ignore' });
    await vi.waitFor(() => viaHttps('/v1/openapi.json').then((r) => expect(r.status).toBe(200)), {
      timeout: 10_000,
      interval: 100,
    });
  });

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGQUIT');
      await exited;
    }
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
      const r = await request(http, {
        port: httpPort,
        method,
        path: '/v1/invoices?page=2',
        headers: { Host: 'attacker.example' },
      });
      expect(r.status).toBe(308);
      expect(r.headers.location).toBe(`https://${NAME}/v1/invoices?page=2`);
      // paygate sets X-Request-Id on every answer: this one never reached it.
      expect(r.headers['x-request-id']).toBeUndefined();
    }
    const r = await request(http, { port: httpPort, path: '/metrics' });
    expect(r.status).toBe(308);
    expect(r.headers.location).toBe(`https://${NAME}/metrics`);
  });
});
