/**
 * Server half of bench/auth.ts, in its own process so the load generator does not share its CPU:
 * the real app with two probe routes, one behind authentication and one public. Prints the URL and
 * an API key as one JSON line, then serves until killed.
 */
import { systemClock } from '../src/clock.js';
import { approvedMerchantWithKey } from '../src/keys/service.js';
import { startAuthBenchApp } from './lib/auth-app.js';

const { app, url } = await startAuthBenchApp();
const db = app.services.db;
const { apiKey } = await approvedMerchantWithKey(db, systemClock, 'bench', { name: 'bench' });
process.stdout.write(JSON.stringify({ url, key: apiKey }) + '\n');
