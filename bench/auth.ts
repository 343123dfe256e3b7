/**
 * Authenticated requests per second versus the same route without authentication, in one run.
 * The floor is a ratio of at least 0.30 (the key row and its merchant are read on every request;
 * a valid key costs no hashing once verified).
 * Rounds alternate between the two routes so that background load on the machine hits both
 * alike; the ratio printed is the median of the per-round ratios.
 * Run: npx tsx bench/auth.ts [rounds] [concurrency] [seconds per round]
 */
import { startChild } from './lib/child.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { summary } from './lib/summary.js';

const rounds = Number(process.argv[2] ?? 6);
const concurrency = Number(process.argv[3] ?? 32);
const roundSeconds = Number(process.argv[4] ?? 2);
const { info, child } = await startChild<{ url: string; key: string }>('auth-server.ts');

const publicRoute = () => ({ method: 'GET', path: '/v1/bench/public' });
const authedRoute = () => ({ method: 'GET', path: '/v1/bench/authenticated', headers: { 'x-api-key': info.key } });
const once = (request: typeof publicRoute, seconds = roundSeconds) =>
  runLoad({ url: info.url, concurrency, seconds, request });

try {
  await once(publicRoute);
  await once(authedRoute);
  const open: LoadResult[] = [];
  const authed: LoadResult[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const o = await once(publicRoute);
    const a = await once(authedRoute);
    open.push(o);
    authed.push(a);
    ratios.push(a.perSecond / o.perSecond);
  }
  const sum = (rs: LoadResult[]) => rs.reduce((n, r) => n + r.requests, 0);
  const worst = (rs: LoadResult[], k: 'p50Ms' | 'p99Ms') => Math.max(...rs.map((r) => r[k]));
  const non200 = [...open, ...authed].reduce(
    (n, r) =>
      n +
      Object.entries(r.statuses)
        .filter(([s]) => s !== '200')
        .reduce((m, [, c]) => m + c, 0),
    0,
  );
  ratios.sort((x, y) => x - y);
  console.log(
    `auth bench: ${rounds} rounds of ${roundSeconds} s per route, ${concurrency} connections, server in its own process`,
  );
  console.log(
    `public          ${Math.round(sum(open) / rounds / roundSeconds)} req/s  (worst p50 ${worst(open, 'p50Ms')} ms, worst p99 ${worst(open, 'p99Ms')} ms)`,
  );
  console.log(
    `authenticated   ${Math.round(sum(authed) / rounds / roundSeconds)} req/s  (worst p50 ${worst(authed, 'p50Ms')} ms, worst p99 ${worst(authed, 'p99Ms')} ms)`,
  );
  console.log(`non-200 answers ${non200}`);
  const ratio = ratios[Math.floor(ratios.length / 2)]!;
  console.log(
    `ratio authenticated/public: median ${ratio.toFixed(3)} (rounds ${ratios.map((r) => r.toFixed(2)).join(' ')}; floor >= 0.30)`,
  );
  summary({ metric: 'authenticated / public route', value: ratio.toFixed(2), target: '>= 0.30', ok: ratio >= 0.3 });
} finally {
  child.kill('SIGTERM');
}
