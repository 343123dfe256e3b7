/**
 * `serve` as the crash test runs it: the real app (src/app.ts) from the environment, the wallet
 * unlocked, the worker host with a short lease (a SIGKILLed holder is replaced after 0.6 s instead
 * of 15 s) and a node client that gives up fast on hangs. Prints `READY <url>` once listening.
 * PAYGATE_TEST_KILL_AFTER_SIGN (read by the payout worker) makes it kill itself after storing a
 * signed transaction, before broadcasting it.
 */
import { buildApp } from '../../../src/app.js';
import { createTronClient } from '../../../src/chain/tronweb-client.js';
import { parseConfig } from '../../../src/config.js';
import { createPayoutWorker } from '../../../src/payouts/worker/worker.js';

// Pre-warmed by the harness: modules loaded, it starts when told (a line on stdin), so a restart
// after a kill does not wait for the module loading of a new process.
if (process.env.CRASH_CHILD_WAIT === '1') {
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  process.stdin.pause();
}
const config = parseConfig({ ADMIN_PORT: '0', CABINET_PORT: '0', PAY_PORT: '0', ...process.env });
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
    renewMs: 150,
    jobs: [],
    workers: (s, lease) => [createPayoutWorker(s, lease, { intervalMs: 50 })],
  },
});
const url = await app.start();
process.stdout.write(`READY ${url}\n`);
const stop = async () => {
  await app.stop();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
