/**
 * Child process of crash.test.ts: the real app (serve's composition) over the parent's SQLite file,
 * running only the webhook dispatcher, with a short worker lease so that a restart after a SIGKILL
 * takes over within a second. env: DATABASE_URL. Prints `started` once listening; pre-warmed by the parent (test/helpers/serve-child.ts).
 */
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
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
  workerHost: {
    ttlMs: 600,
    renewMs: 100,
    jobs: [],
    workers: (s, lease) => [new WebhookDispatcher(s.db, s.clock, lease, s.logger, { pollMs: 50 }).worker(100)],
  },
});
await app.start();
process.stdout.write('started\n');
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
