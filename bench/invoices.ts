/**
 * Invoice throughput over HTTP on loopback: the real app (real SQLite file with synchronous=FULL,
 * real argon2 key, real HD derivation from the xpub) in a child process, a keep-alive HTTP client
 * here. Prints: max creations/s (new order ids, closed loop) with p50/p99; GET by id per second
 * with p50/p99; and latency at half the max creation rate (open loop: requests are sent on a fixed
 * schedule and latency counts from the scheduled moment, so a stalled server cannot hide it).
 *
 *   npx tsx bench/invoices.ts [--seconds 10] [--connections 16]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { approvedMerchantWithKey } from '../src/keys/service.js';
import { initWallet } from '../src/wallet/service.js';
import { summary } from './lib/summary.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

function envFor(dir: string): Record<string, string> {
  return {
    DATABASE_URL: path.join(dir, 'bench.db'),
    WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
    WALLET_PASSPHRASE: 'benchmark passphrase',
    TRON_NETWORK: 'devnet',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    API_RATE_LIMIT_PER_IP: '1000000',
    API_RATE_LIMIT_PER_KEY: '1000000',
  };
}

/** Child process: serve until killed, print the URL. */
async function serve(): Promise<void> {
  const app = await buildApp(parseConfig({ ADMIN_PORT: '0', CABINET_PORT: '0', PAY_PORT: '0', ...process.env }));
  const url = await app.start();
  process.stdout.write(`URL ${url}\n`);
  process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
}

interface Phase {
  ok: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

const agent = (n: number) => new http.Agent({ keepAlive: true, maxSockets: n });

function request(
  base: URL,
  ag: http.Agent,
  method: string,
  p: string,
  key: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        path: p,
        method,
        agent: ag,
        headers: {
          'x-api-key': key,
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

let seq = 0;
const createBody = () =>
  JSON.stringify({ order_id: `bench-${process.pid}-${++seq}`, asset: 'USDT_TRON', amount: '12.5', expires_in: 3600 });

/** Closed loop: `connections` clients each send the next request when the previous answered. */
async function closedLoop(seconds: number, connections: number, send: () => Promise<number>): Promise<Phase> {
  const latencies: number[] = [];
  let ok = 0;
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const status = await send();
        latencies.push(performance.now() - t0);
        if (status >= 200 && status < 300) ok++;
        else errors++;
      }
    }),
  );
  return { ok, errors, seconds: (performance.now() - start) / 1000, latencies };
}

/** Open loop at a fixed rate; latency from each request's scheduled send time. */
async function openLoop(seconds: number, rate: number, send: () => Promise<number>): Promise<Phase> {
  const latencies: number[] = [];
  let ok = 0;
  let errors = 0;
  const total = Math.round(seconds * rate);
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      send().then((status) => {
        latencies.push(performance.now() - due);
        if (status >= 200 && status < 300) ok++;
        else errors++;
      }),
    );
  }
  await Promise.all(pending);
  return { ok, errors, seconds: (performance.now() - start) / 1000, latencies };
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function report(name: string, r: Phase): number {
  const s = [...r.latencies].sort((a, b) => a - b);
  const rate = r.ok / r.seconds;
  console.log(
    `${name.padEnd(34)} ${rate.toFixed(0).padStart(6)} req/s   p50 ${pct(s, 50).toFixed(2).padStart(7)} ms   p99 ${pct(s, 99).toFixed(2).padStart(7)} ms   ok ${r.ok}  errors ${r.errors}`,
  );
  return rate;
}

async function main(): Promise<void> {
  const seconds = arg('seconds', 10);
  const connections = arg('connections', 16);
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-bench-'));
  const env = envFor(dir);
  const config = parseConfig({ ADMIN_PORT: '0', CABINET_PORT: '0', PAY_PORT: '0', ...env });

  // Operator setup, as the CLI would do it: schema, wallet, an approved merchant and its key.
  const database = openDatabase(config.database);
  await migrateToLatest(database.db);
  await initWallet(database.db, systemClock, 'bench', config);
  const key = (await approvedMerchantWithKey(database.db, systemClock, 'bench', { name: 'Bench shop' })).apiKey;
  await database.close();

  const self = fileURLToPath(import.meta.url);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...process.execArgv,
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      self,
      '--serve',
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m2 = /URL (\S+)/.exec(out);
      if (m2) resolve(m2[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const base = new URL(url);
  const ag = agent(connections);
  const ids: string[] = [];
  const create = async () => {
    const r = await request(base, ag, 'POST', '/v1/invoices', key, createBody());
    if (r.status === 201 && ids.length < 50_000) ids.push((JSON.parse(r.text) as { invoice_id: string }).invoice_id);
    return r.status;
  };
  const get = async () =>
    (await request(base, ag, 'GET', `/v1/invoices/${ids[Math.floor(Math.random() * ids.length)]}`, key)).status;

  try {
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    console.log(
      `paygate invoice bench: ${connections} connections, ${seconds} s per phase, server pid ${child.pid} (Node ${process.version}, ${cpus().length} CPUs)`,
    );
    console.log(`load average before: ${load()} (other work on the machine skews every figure below)`);
    await closedLoop(2, connections, create); // warm-up: JIT, statement cache
    const max = report('POST /v1/invoices (max, closed)', await closedLoop(seconds, connections, create));
    summary({ metric: 'POST invoice max, own client (closed loop)', value: `${Math.round(max)}/s` });
    report('GET /v1/invoices/{id} (max, closed)', await closedLoop(seconds, connections, get));
    const half = Math.max(1, Math.round(max / 2));
    report(`POST /v1/invoices at ${half}/s (open)`, await openLoop(seconds, half, create));
    console.log(`load average after: ${load()}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    ag.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
