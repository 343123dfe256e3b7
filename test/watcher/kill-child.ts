/**
 * Child process of kill.test.ts: the real app (serve's composition) over the parent's SQLite file,
 * running only the chain watcher, in small batches so that a SIGKILL lands mid-scan.
 * env: DATABASE_URL, WALLET_KEYSTORE, TRON_FULL_NODE_URL (the parent's devnet).
 */
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { chainWatcher } from '../../src/watcher/watcher.js';

const config = parseConfig({
  ADMIN_PORT: '0',
  CABINET_PORT: '0',
  PAY_PORT: '0',
  ...process.env,
  TRON_NETWORK: 'devnet',
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
});
const app = await buildApp(config, {
  workerHost: {
    ttlMs: 1_000,
    renewMs: 100,
    jobs: [],
    workers: (s, lease) => [chainWatcher(s, lease, { intervalMs: 10, batch: 7 })],
  },
});
await app.start();
process.stdout.write('started\n');
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
