/**
 * Authenticated requests per second versus the same route without authentication, in one run.
 * The target (issue 2) is a ratio of at least 0.8: a valid request must cost no hashing.
 * Run: npx tsx bench/auth.ts [seconds] [concurrency]
 */
import { startChild } from './lib/child.js';
import { runLoad } from './lib/load.js';

const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 32);
const { info, child } = await startChild<{ url: string; key: string }>('auth-server.ts');
try {
  const warm = { url: info.url, concurrency, seconds: 1 };
  await runLoad({ ...warm, request: () => ({ method: 'GET', path: '/v1/bench/authenticated', headers: { 'x-api-key': info.key } }) });
  await runLoad({ ...warm, request: () => ({ method: 'GET', path: '/v1/bench/public' }) });
  const open = await runLoad({ url: info.url, concurrency, seconds, request: () => ({ method: 'GET', path: '/v1/bench/public' }) });
  const authed = await runLoad({
    url: info.url,
    concurrency,
    seconds,
    request: () => ({ method: 'GET', path: '/v1/bench/authenticated', headers: { 'x-api-key': info.key } }),
  });
  const row = (name: string, r: typeof open) =>
    `${name.padEnd(16)} ${String(r.perSecond).padStart(7)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms   statuses ${JSON.stringify(r.statuses)}`;
  console.log(`auth bench: ${seconds}s per route, ${concurrency} connections, server in its own process`);
  console.log(row('public', open));
  console.log(row('authenticated', authed));
  console.log(`ratio authenticated/public: ${(authed.perSecond / open.perSecond).toFixed(3)} (target >= 0.8)`);
} finally {
  child.kill('SIGTERM');
}
