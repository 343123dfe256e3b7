/**
 * Child process of nginx-replicas.test.ts: one `serve` replica, the real app as serve builds it
 * (wallet unlocked, every background worker under the worker lease with the timings
 * WORKER_LEASE_TTL gives), configured from its environment alone: DATABASE_URL (the shared
 * PostgreSQL database), PORT, ADMIN_PORT, CABINET_PORT, TRON_FULL_NODE_URL, WALLET_KEYSTORE,
 * WALLET_PASSPHRASE, WORKER_LEASE_TTL. Prints `started` once listening; pre-warmed by the parent
 * (test/helpers/serve-child.ts).
 */
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { waitForGo } from '../helpers/serve-child.js';

await waitForGo();
const app = await buildApp(parseConfig(process.env), {
  unlockWallet: true,
});
await app.start();
process.stdout.write('started\n');
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
