/**
 * Server half of bench/revocation.ts, in its own process as `serve` would be: the real app with
 * the probe route, one merchant and N keys (cheap argon2: the bench measures revocation, not
 * hashing). Prints the URL, the database path and the keys as one JSON line, then serves until
 * killed.
 */
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { approvedMerchantWithKey, issueKey } from '../src/keys/service.js';

const count = Number(process.argv[2] ?? 50);
const dir = mkdtempSync(path.join(tmpdir(), 'paygate-bench-'));
const config = parseConfig({
  ADMIN_PORT: '0',
  DATABASE_URL: path.join(dir, 'bench.db'),
  PORT: '0',
  LOG_LEVEL: 'silent',
  TRON_NETWORK: 'devnet',
  API_RATE_LIMIT_PER_IP: '1000000',
  API_RATE_LIMIT_PER_KEY: '1000000',
});
const app = await buildApp(config, {
  extraRoutes: async (http) => {
    http.get('/v1/bench/authenticated', async (req) => ({ merchant_id: req.merchant?.id }));
  },
});
const url = await app.start();
const db = app.services.db;
const { merchant } = await approvedMerchantWithKey(db, systemClock, 'bench', { name: 'bench' });
const keys: { keyId: string; key: string }[] = [];
for (let i = 0; i < count; i++) {
  const issued = await issueKey(db, systemClock, 'bench', merchant.merchant_id, { memoryCost: 1024, timeCost: 1, parallelism: 1 });
  keys.push({ keyId: issued.key_id, key: issued.api_key });
}
process.stdout.write(JSON.stringify({ url, databasePath: config.databasePath, keys }) + '\n');
process.on('SIGTERM', () =>
  void app.stop().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }),
);
