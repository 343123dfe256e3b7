/**
 * The merchant API against a bare fastify in the same run: authenticated
 * GET /v1/invoices/{id}, GET /v1/payouts/{id} and POST /v1/invoices (new order ids), their ratios
 * to a bare constant GET and a bare POST echo, latency at 80 % of each peak, and read latency while
 * creations run at 80 % of theirs. Servers and the app's devnet node run in their own processes;
 * see bench/lib/api-bench.ts.
 *
 *   npx tsx bench/api.ts [--rounds 5] [--seconds 3] [--connections 32] [--cpu-prof DIR]
 */
import { printApiBench, runApiBench } from './lib/api-bench.js';
import { summary } from './lib/summary.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const rounds = Number(arg('rounds', '5'));
const seconds = Number(arg('seconds', '3'));
const connections = Number(arg('connections', '32'));
const prof = arg('cpu-prof', '');

console.log(
  `api bench: ${rounds} rounds of ${seconds} s per route, ${connections} connections, servers in their own processes (medians)`,
);
const r = await runApiBench({
  rounds,
  seconds,
  connections,
  devnet: true,
  nodeArgs: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [],
});
printApiBench(r);

const ms = (x: number) => `${x.toFixed(1)} ms`;
summary({
  metric: 'GET invoice / bare GET',
  value: r.ratios.invoiceGet.toFixed(2),
  target: '>= 0.10',
  ok: r.ratios.invoiceGet >= 0.1,
});
summary({ metric: 'GET invoice / bare GET, fixed request', value: r.ratios.invoiceGetFixed.toFixed(2) });
summary({ metric: 'GET invoice / bare GET, server CPU', value: r.ratios.invoiceGetCpu.toFixed(2) });
summary({ metric: 'GET payout / bare GET', value: r.ratios.payoutGet.toFixed(2) });
summary({
  metric: 'GET invoice p99 at 80 %',
  value: ms(r.at80.invoiceGet.p99Ms),
  target: '< 25 ms',
  ok: r.at80.invoiceGet.p99Ms < 25,
});
summary({
  metric: 'POST invoice peak',
  value: `${Math.round(r.invoicePost.perSecond)}/s`,
  target: '>= 500/s',
  ok: r.invoicePost.perSecond >= 500,
});
summary({ metric: 'POST invoice / bare POST', value: r.ratios.invoicePost.toFixed(2) });
summary({
  metric: 'POST invoice p99 at 80 %',
  value: ms(r.at80.invoicePost.p99Ms),
  target: '< 25 ms',
  ok: r.at80.invoicePost.p99Ms < 25,
});
summary({
  metric: 'mixed: read p99 (creations at 80 %)',
  value: ms(r.mixed.reads.p99Ms),
  target: '< 25 ms',
  ok: r.mixed.reads.p99Ms < 25,
});
