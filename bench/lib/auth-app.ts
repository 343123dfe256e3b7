/**
 * The real app as the auth benchmarks' server processes run it: a temporary database, limits
 * (requests and key hashes per address) raised past any load, the authenticated probe route (and
 * a public one), and a SIGTERM that stops the app and removes the database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp, type App, type AppOptions } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';

export async function startAuthBenchApp(opts: Pick<AppOptions, 'cabinet'> = {}): Promise<{ app: App; url: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-bench-'));
  const config = parseConfig({
    ADMIN_PORT: '0',
    CABINET_PORT: '0',
    PAY_PORT: '0',
    DATABASE_URL: path.join(dir, 'bench.db'),
    PORT: '0',
    LOG_LEVEL: 'silent',
    TRON_NETWORK: 'devnet',
    API_RATE_LIMIT_PER_IP: '1000000',
    API_RATE_LIMIT_PER_KEY: '1000000',
  });
  const app = await buildApp(config, {
    ...opts,
    // The revocation bench tries 50 new keys from one address in about a minute, past the 30 key
    // hashes a minute an address may spend (its 31st key would be refused 429 before revoking).
    verifier: { hashBudgetPerIp: 1_000_000 },
    extraRoutes: async (http) => {
      http.get('/v1/bench/authenticated', async (req) => ({ merchant_id: req.merchant?.id }));
      http.get('/v1/bench/public', { config: { public: true } }, async () => ({ merchant_id: null }));
    },
  });
  const url = await app.start();
  process.on(
    'SIGTERM',
    () =>
      void app.stop().then(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      }),
  );
  return { app, url };
}
