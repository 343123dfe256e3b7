/**
 * Server half of bench/revocation.ts, in its own process as `serve` would be: the real app with
 * the probe route, one merchant and N keys (cheap argon2: the bench measures revocation, not
 * hashing). Prints the URL, the database path and the keys as one JSON line, then serves until
 * killed.
 */
import { systemClock } from '../src/clock.js';
import { approvedMerchantWithKey, issueKey } from '../src/keys/service.js';
import { startAuthBenchApp } from './lib/auth-app.js';

const count = Number(process.argv[2] ?? 50);
const { app, url } = await startAuthBenchApp();
const db = app.services.db;
const { merchant } = await approvedMerchantWithKey(db, systemClock, 'bench', { name: 'bench' });
const keys: { keyId: string; key: string }[] = [];
for (let i = 0; i < count; i++) {
  const issued = await issueKey(db, systemClock, 'bench', merchant.merchant_id, {
    memoryCost: 1024,
    timeCost: 1,
    parallelism: 1,
  });
  keys.push({ keyId: issued.key_id, key: issued.api_key });
}
process.stdout.write(JSON.stringify({ url, databasePath: app.config.databasePath, keys }) + '\n');
