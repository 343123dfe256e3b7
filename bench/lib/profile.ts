/**
 * Profiles the app server's main thread under one kind of load: starts bench/api-server.ts with
 * BENCH_CPU_PROF (the load only, not the setup), drives one route closed-loop, stops the server
 * (which writes DIR/main.cpuprofile).
 *   npx tsx bench/lib/profile.ts get|payout|post [seconds=5] [dir=/tmp/paygate-prof]
 */
import type { ServerInfo } from '../api-server.js';
import { cannon, type Route } from './cannon.js';
import { SERVE_NODE_FLAGS } from '../../src/operations/heap.js';
import { startChild, stopChild } from './child.js';

const kind = process.argv[2] ?? 'get';
const seconds = Number(process.argv[3] ?? 5);
const dir = process.argv[4] ?? '/tmp/paygate-prof';
const { info, child } = await startChild<ServerInfo>('api-server.ts', {
  nodeArgs: [...SERVE_NODE_FLAGS],
  env: { BENCH_CPU_PROF: `${dir}/main.cpuprofile` },
});
const auth = { 'x-api-key': info.key };
let n = 0;
const pick = (xs: string[]) => xs[Math.floor(Math.random() * xs.length)];
const routes: Record<string, Route> = {
  get: { method: 'GET', path: () => `/v1/invoices/${pick(info.invoices)}`, headers: auth },
  payout: { method: 'GET', path: () => `/v1/payouts/${pick(info.payouts)}`, headers: auth },
  post: {
    method: 'POST',
    path: '/v1/invoices',
    headers: auth,
    body: () =>
      JSON.stringify({ order_id: `prof-${Date.now()}-${++n}`, asset: 'USDT_TRON', amount: '12.5', expires_in: 3600 }),
  },
};
const r = await cannon({ url: info.url, route: routes[kind]!, seconds, connections: 32, pid: info.pid });
console.log(
  `${kind}: ${Math.round(r.perSecond)}/s p50 ${r.p50Ms} ms p99 ${r.p99Ms} ms non-2xx ${r.non2xx}, server CPU ${Math.round(r.cpuUs)} µs/req; profile in ${dir}`,
);
await stopChild(child);
