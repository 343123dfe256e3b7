/**
 * A shipped nginx site of deploy/nginx/ for real: nginx (the Debian package) runs as this user
 * with its own prefix, pid and temp paths under a temp dir, on loopback ports, with a self-signed
 * certificate made by openssl. Only the listen ports, the certificate paths and what the caller
 * rewrites (the upstream addresses) of the shipped file change.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { expect, vi } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { toolPresent } from '../helpers/tools.js';

export const SITE_NAME = 'pay.example.com';

function findNginx(): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin']) {
    const candidate = path.join(dir, 'nginx');
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}

/** The nginx binary, or null (the caller skips; where tools are required, the file fails). */
const found = findNginx();
export const nginxBin = toolPresent('nginx', found !== null, 'apt-get install -y nginx') ? found : null;

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request to 127.0.0.1 with `Host: pay.example.com` unless the headers name another. */
export function request(mod: typeof http | typeof https, opts: https.RequestOptions, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = mod.request(
      { host: '127.0.0.1', agent: false, ...opts, headers: { Host: SITE_NAME, ...opts.headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface RunningNginx {
  httpPort: number;
  httpsPort: number;
  /** A request over HTTPS to the site, checked against the test certificate. */
  viaHttps(p: string, opts?: https.RequestOptions, body?: string): Promise<Answer>;
  /** A request over plain HTTP. */
  viaHttp(p: string, opts?: http.RequestOptions): Promise<Answer>;
  stop(): Promise<void>;
}

/**
 * Starts nginx with the site `conf` (a file of deploy/nginx/), its upstreams rewritten by
 * `upstreams`, and resolves once `readyPath` answers 200 over HTTPS.
 */
export async function startNginx(
  conf: string,
  upstreams: (site: string) => string,
  readyPath = '/v1/openapi.json',
): Promise<RunningNginx> {
  const bin = nginxBin;
  if (!bin) throw new Error('nginx is not installed');
  const dir = tempDir('paygate-nginx-');
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
      `/CN=${SITE_NAME}`,
      '-addext',
      `subjectAltName=DNS:${SITE_NAME}`,
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  const httpPort = await freePort();
  const httpsPort = await freePort();
  const site = upstreams(
    readFileSync(conf, 'utf8')
      .replace(/^\s*listen \[::\]:.*$/gm, '')
      .replace(/listen 80;/, `listen 127.0.0.1:${httpPort};`)
      .replace(/listen 443 ssl;/, `listen 127.0.0.1:${httpsPort} ssl;`)
      .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${path.join(dir, 'cert.pem')};`)
      .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${path.join(dir, 'key.pem')};`),
  );
  writeFileSync(path.join(dir, 'paygate.conf'), site);
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(path.join(dir, 'tmp', d), { recursive: true });
  const temp = (kind: string) => `${kind}_temp_path ${path.join(dir, 'tmp', kind === 'client_body' ? 'body' : kind)};`;
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
  execFileSync(bin, [...args, '-t'], { stdio: 'pipe' });
  const nginx: ChildProcess = spawn(bin, args, { stdio: 'ignore' });
  const viaHttps = (p: string, opts: https.RequestOptions = {}, body?: string) =>
    request(https, { port: httpsPort, path: p, servername: SITE_NAME, ca: cert, ...opts }, body);
  const viaHttp = (p: string, opts: http.RequestOptions = {}) => request(http, { port: httpPort, path: p, ...opts });
  await vi.waitFor(() => viaHttps(readyPath).then((r) => expect(r.status).toBe(200)), {
    timeout: 10_000,
    interval: 100,
  });
  return {
    httpPort,
    httpsPort,
    viaHttps,
    viaHttp,
    async stop() {
      if (nginx.exitCode !== null || nginx.signalCode !== null) return;
      const exited = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGQUIT');
      await exited;
    },
  };
}
