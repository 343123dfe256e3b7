/**
 * Server half of bench/auth.ts, in its own process so the load generator does not share its CPU:
 * the real app with two probe routes, one behind authentication and one public. Prints the URL and
 * an API key as one JSON line, then serves until killed.
 */
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { approvedMerchantWithKey } from '../src/keys/service.js';

const dir = mkdtempSync(path.join(tmpdir(), 'paygate-bench-'));
const config = parseConfig({ ADMIN_PORT: '0',
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
    http.get('/v1/bench/public', { config: { public: true } }, async () => ({ merchant_id: null }));
  },
});
const url = await app.start();
const db = app.services.db;
const { apiKey } = await approvedMerchantWithKey(db, systemClock, 'bench', { name: 'bench' });
process.stdout.write(JSON.stringify({ url, key: apiKey }) + '\n');
process.on('SIGTERM', () =>
  void app.stop().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }),
);
