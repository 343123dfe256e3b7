/**
 * Server half of bench/replicas.ts, in its own process so the load generator does not share its
 * CPU. Two kinds, chosen by the first argument:
 *
 * - `devnet`: the TRON devnet (a block every BENCH_BLOCK_MS, default 500 ms), the replicas' node;
 *   prints {url, pid}.
 * - `replica` (default): one `serve` replica as `paygate serve` builds it (wallet unlocked, every
 *   background worker under the worker lease, logs at warn, rate limits raised past what the
 *   variables accept) over DATABASE_URL, whose wallet, merchant and key the bench prepared. Reads
 *   its database, keystore, node and WORKER_LEASE_TTL from the environment (REDIS_URL too, when
 *   set). BENCH_POOL_AHEAD: deposit addresses derived ahead (default serve's, filled before it
 *   reports ready; the replicas restarted between kills take a small one). Prints
 *   {url, admin, control, ahead, batch, pid} and serves until SIGTERM.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { startDevnet } from '../src/devnet/index.js';
import { SERVE_POOL, SERVE_POOL_AHEAD, SERVE_POOL_BATCH } from '../src/wallet/pool.js';

export interface ReplicaInfo {
  url: string;
  admin: string;
  /** GET tops the deposit address pool up and answers how many addresses are ready. */
  control: string;
  /** Addresses the pool derives ahead, and its batch: full means more than ahead - batch ready. */
  ahead: number;
  batch: number;
  pid: number;
}

async function devnet(): Promise<void> {
  const d = await startDevnet({ blockTimeMs: Number(process.env.BENCH_BLOCK_MS ?? 500) });
  process.stdout.write(`${JSON.stringify({ url: d.url, pid: process.pid })}\n`);
  process.on('SIGTERM', () => void d.close().then(() => process.exit(0)));
}

async function replica(): Promise<void> {
  const config = {
    ...parseConfig({
      ADMIN_PORT: '0',
      CABINET_PORT: '0',
      ...process.env,
      TRON_NETWORK: 'devnet',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
    }),
    rateLimitPerIp: Number.MAX_SAFE_INTEGER,
    rateLimitPerKey: Number.MAX_SAFE_INTEGER,
  };
  const ahead = Number(process.env.BENCH_POOL_AHEAD ?? 0);
  const pool =
    ahead > 0 ? { ...SERVE_POOL, ahead, batch: Math.min(ahead, SERVE_POOL_BATCH), lowWater: ahead / 2 } : SERVE_POOL;
  const app = await buildApp(config, { unlockWallet: true, addresses: { pool } });
  const url = await app.start();
  const db = app.services.db;
  await app.services.addresses.start(db);
  const control = http.createServer((_req, res) => {
    void app.services.addresses.start(db).then(
      () => res.end(String(app.services.addresses.ready ?? 0)),
      () => res.end('0'),
    );
  });
  await new Promise<void>((r) => control.listen(0, '127.0.0.1', r));
  const info: ReplicaInfo = {
    url,
    admin: app.adminUrl as string,
    control: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    ahead: pool.ahead ?? SERVE_POOL_AHEAD,
    batch: pool.batch ?? SERVE_POOL_BATCH,
    pid: process.pid,
  };
  process.stdout.write(`${JSON.stringify(info)}\n`);
  process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
}

if (process.argv[2] === 'devnet') await devnet();
else await replica();
