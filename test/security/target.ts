/**
 * A real `serve` process to attack (scripts/sqlmap.ts, scripts/brute-force.ts and their tests):
 * a temporary database (a SQLite file, or a PostgreSQL database with PAYGATE_TEST_DATABASE=postgres)
 * prepared as an operator would (wallet, merchants, keys, funds, a
 * whitelisted address), then `bin/dev.js serve` with its admin listener on a known port, and a few
 * records created over HTTP so that every path id exists. Its stdout (pino JSON lines) is kept so a
 * caller can look for failures; /metrics gives the request counts by route and status.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { TronWeb } from 'tronweb';
import { randomBytes } from 'node:crypto';
import { loadCatalog } from '../../src/assets/catalog.js';
import { systemClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { SERVE_NODE_FLAGS } from '../../src/operations/heap.js';
import { approvedMerchantWithKey, issueKey } from '../../src/keys/service.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { startDevnet } from '../../src/devnet/index.js';
import { initWallet } from '../../src/wallet/service.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { createTestDatabase, type TestPostgres } from '../helpers/postgres-server.js';
import { servedUrl } from '../helpers/serve-log.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEV_BIN = path.join(ROOT, 'bin/dev.js');

export interface TargetOptions {
  /** Extra environment for serve, e.g. raised API_RATE_LIMIT_PER_IP for sqlmap. */
  env?: Record<string, string>;
  /** LOG_LEVEL of serve (default info: the start line gives the URL; every 5xx is logged at warn or error). */
  logLevel?: string;
  /** Further keys of the shop, issued and never used, so serve has not verified them yet. */
  spareKeys?: number;
}

export interface Target {
  base: string;
  adminUrl: string;
  pid: number;
  /** Key of the per_invoice merchant (invoices, payouts). */
  shopKey: string;
  /** Key of the per_user merchant (permanent addresses). */
  usersKey: string;
  invoiceId: string;
  orderId: string;
  payoutId: string;
  payoutReference: string;
  payoutAddress: string;
  externalUserId: string;
  /** Keys of the shop that serve had not verified when it started (TargetOptions.spareKeys). */
  spareKeys: string[];
  /** serve's log lines so far (JSON lines and the banner). */
  logLines: string[];
  /** Log lines that report a failed request (5xx), so far. */
  failures(): Array<Record<string, unknown>>;
  /** Counter values of /metrics whose name is `name`, with their labels. */
  metric(name: string): Promise<Array<{ labels: Record<string, string>; value: number }>>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

async function prepare(env: Record<string, string>, spare: number) {
  const config = parseConfig(env);
  const setup = openDatabase(config.database);
  try {
    await migrateToLatest(setup.db);
    await initWallet(setup.db, systemClock, 'hostile', config);
    const shop = await approvedMerchantWithKey(setup.db, systemClock, 'hostile', {
      name: 'Hostile shop',
      siteUrl: 'https://shop.example',
    });
    const users = await approvedMerchantWithKey(setup.db, systemClock, 'hostile', {
      name: 'Hostile users',
      addressMode: 'per_user',
    });
    const catalog = loadCatalog(config.tronNetwork);
    const payoutAddress = TronWeb.address.fromPrivateKey(randomBytes(32).toString('hex')) as string;
    // Plenty of funds: an attack that creates payouts with new references must not drain them.
    await creditMerchant(setup.db, systemClock, 'hostile', catalog, shop.merchant.merchant_id, {
      asset: 'USDT_TRON',
      amount: '1000000000',
      memo: 'hostile funding',
    });
    await addToWhitelist(setup.db, systemClock, 'hostile', catalog, shop.merchant.merchant_id, {
      asset: 'USDT_TRON',
      address: payoutAddress,
      delay: '0',
    });
    const spareKeys: string[] = [];
    for (let i = 0; i < spare; i++)
      spareKeys.push((await issueKey(setup.db, systemClock, 'hostile', shop.merchant.merchant_id)).api_key);
    return { shopKey: shop.apiKey, usersKey: users.apiKey, payoutAddress, spareKeys };
  } finally {
    await setup.close();
  }
}

async function post(base: string, route: string, key: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(base + route, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Parses the Prometheus text format into samples of one metric. */
export function parseMetric(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ labels, value: Number(m[4]) });
  }
  return out;
}

export async function startTarget(opts: TargetOptions = {}): Promise<Target> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-hostile-'));
  const adminPort = await freePort();
  // A node that answers (blocks only on demand), so the workers and /metrics' probes stay quiet.
  const devnet = await startDevnet({ blockTimeMs: 0 });
  const postgres: TestPostgres | null =
    process.env.PAYGATE_TEST_DATABASE === 'postgres' ? await createTestDatabase() : null;
  const env: Record<string, string> = {
    DATABASE_URL: postgres?.url ?? path.join(dir, 'paygate.db'),
    WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
    WALLET_PASSPHRASE: 'hostile target passphrase',
    TRON_NETWORK: 'devnet',
    TRON_FULL_NODE_URL: devnet.url,
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_HOST: '127.0.0.1',
    ADMIN_PORT: String(adminPort),
    CABINET_PORT: '0',
    PAY_PORT: '0',
    LOG_LEVEL: opts.logLevel ?? 'info',
    ...opts.env,
  };
  const prepared = await prepare(env, opts.spareKeys ?? 0).catch(async (e: unknown) => {
    await devnet.close();
    rmSync(dir, { recursive: true, force: true });
    await postgres?.drop();
    throw e;
  });
  const child: ChildProcess = spawn(process.execPath, [...SERVE_NODE_FLAGS, DEV_BIN, 'serve'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logLines: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  child.stderr!.on('data', (d: Buffer) => logLines.push(d.toString()));
  const base = await new Promise<string>((resolve, reject) => {
    lines.on('line', (l) => {
      logLines.push(l);
      const url = servedUrl(l);
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${logLines.join('\n')}`)));
  });
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await devnet.close();
    rmSync(dir, { recursive: true, force: true });
    await postgres?.drop();
  };
  try {
    const orderId = 'order-1';
    const invoice = await post(base, '/v1/invoices', prepared.shopKey, {
      order_id: orderId,
      asset: 'USDT_TRON',
      amount: '10',
      expires_in: 604800,
    });
    const payoutReference = 'payout-1';
    const payout = await post(base, '/v1/payouts', prepared.shopKey, {
      reference: payoutReference,
      asset: 'USDT_TRON',
      to_address: prepared.payoutAddress,
      amount: '1',
    });
    const externalUserId = 'user-1';
    await post(base, '/v1/addresses', prepared.usersKey, { external_user_id: externalUserId, network: 'tron' });
    return {
      base,
      adminUrl,
      pid: child.pid!,
      ...prepared,
      invoiceId: invoice.invoice_id as string,
      orderId,
      payoutId: payout.payout_id as string,
      payoutReference,
      externalUserId,
      logLines,
      failures: () =>
        logLines
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((l) => typeof l.msg === 'string' && /^request (failed|refused)/.test(l.msg)),
      metric: async (name) => parseMetric(await (await fetch(`${adminUrl}/metrics`)).text(), name),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
