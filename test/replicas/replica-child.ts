/**
 * One `serve` replica as test/replicas runs it: the real app (src/app.ts) from the environment,
 * with what `paygate serve` does around it (the wallet unlocked, the node's chain checked, the
 * background work under the worker lease with the default workers and scheduled jobs, a clean
 * stop on SIGTERM). Two differences, both for a small shared test machine: deposit addresses are
 * derived on demand (no thread deriving thousands ahead) and the node client gives up fast.
 * Prints `READY <url> <admin url>` once listening; logs JSON lines on stdout.
 */
import { buildApp } from '../../src/app.js';
import { checkChainAtStart } from '../../src/chain/identity.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { parseConfig } from '../../src/config.js';
import { waitForGo } from '../helpers/serve-child.js';

await waitForGo();
const config = parseConfig(process.env);
const app = await buildApp(config, {
  unlockWallet: true,
  chain: createTronClient({
    fullHost: config.tronFullNodeUrl as string,
    timeoutMs: 1_500,
    retries: 2,
    backoffMs: 20,
    maxBackoffMs: 200,
  }),
});
await checkChainAtStart(app.database.db, app.services.clock, app.config, app.services.logger);
const url = await app.start();
process.stdout.write(`READY ${url} ${app.adminUrl}\n`);
const stop = async () => {
  await app.stop();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
