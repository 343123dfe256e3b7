/**
 * Server half of bench/sign-in-flood.ts: the real app with the cabinet's sign-in limits raised
 * past the flood (so every sign-in reaches the password check), and fresh API keys at the
 * production argon2 cost, each never used yet. Prints the URLs and the keys as one JSON line.
 */
import { systemClock } from '../src/clock.js';
import { approvedMerchantWithKey } from '../src/keys/service.js';
import { startAuthBenchApp } from './lib/auth-app.js';

const keys = Number(process.argv[2] ?? 8);
const { app, url } = await startAuthBenchApp({ cabinet: { loginPerIp: 1_000_000, loginPerAccount: 1_000_000 } });
const fresh: string[] = [];
for (let i = 0; i < keys; i++)
  fresh.push((await approvedMerchantWithKey(app.services.db, systemClock, 'bench', { name: `bench ${i}` })).apiKey);
process.stdout.write(JSON.stringify({ url, cabinet: app.cabinetUrl, keys: fresh }) + '\n');
