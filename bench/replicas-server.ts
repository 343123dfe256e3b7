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
 *   set). Prints {url, admin, pid} and serves until SIGTERM.
 */
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { startDevnet } from '../src/devnet/index.js';

export interface ReplicaInfo {
  url: string;
  admin: string;
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
      PAY_PORT: '0',
      ...process.env,
      TRON_NETWORK: 'devnet',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
    }),
    rateLimitPerIp: Number.MAX_SAFE_INTEGER,
    rateLimitPerKey: Number.MAX_SAFE_INTEGER,
  };
  const app = await buildApp(config, { unlockWallet: true });
  const url = await app.start();
  const info: ReplicaInfo = { url, admin: app.adminUrl as string, pid: process.pid };
  process.stdout.write(`${JSON.stringify(info)}\n`);
  process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
}

if (process.argv[2] === 'devnet') await devnet();
else await replica();
