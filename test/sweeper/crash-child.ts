/**
 * Child process of crash.test.ts: the real app (serve's composition) over the parent's SQLite file
 * with the wallet unlocked, running the chain watcher and the sweeper, with a short worker lease so
 * that a restart after a SIGKILL takes over within a second, and a node client that gives up fast.
 * env: DATABASE_URL, WALLET_KEYSTORE, WALLET_PASSPHRASE, TRON_FULL_NODE_URL. Prints `started`; pre-warmed by the parent (test/helpers/serve-child.ts).
 */
import { buildApp } from '../../src/app.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { parseConfig } from '../../src/config.js';
import { sweeperWorker } from '../../src/sweeper/worker.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { waitForGo } from '../helpers/serve-child.js';

await waitForGo();
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
  unlockWallet: true,
  chain: createTronClient({
    fullHost: config.tronFullNodeUrl as string,
    timeoutMs: 800,
    retries: 2,
    backoffMs: 20,
    maxBackoffMs: 100,
  }),
  workerHost: {
    ttlMs: 600,
    renewMs: 100,
    jobs: [],
    workers: (s, lease) => [
      chainWatcher(s, lease, { intervalMs: 20 }),
      ...sweeperWorker(s, lease, { intervalMs: 50, maxRetryMs: 500 }),
    ],
  },
});
await app.start();
process.stdout.write('started\n');
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
