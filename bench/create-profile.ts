/**
 * Where one invoice creation's CPU goes: the app as `serve` builds it (bench/api-server.ts) under
 * POST /v1/invoices only, profiled by V8's sampling profiler from ready to stop, then the samples
 * summed by function (self time) and by the package or source folder each function lives in,
 * divided by the creations served: µs of CPU per creation. Also the event loop's delay p99 under
 * that load (monitorEventLoopDelay, in the server). Prints lines above `--min` µs.
 *
 *   npx tsx bench/create-profile.ts [--seconds 8] [--connections 32] [--min 50]
 *   npx tsx bench/create-profile.ts --database postgres   (a fresh PostgreSQL database)
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerInfo } from './api-server.js';
import { cannon } from './lib/cannon.js';
import { startChild, stopChild } from './lib/child.js';
import { onAdmin, POSTGRES_ADMIN_URL } from './lib/replica-fleet.js';
import { SERVE_NODE_FLAGS } from '../src/operations/heap.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const seconds = Number(arg('seconds', '8'));
const connections = Number(arg('connections', '32'));
const minUs = Number(arg('min', '50'));
const engine = arg('database', 'sqlite');

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const profFile = path.join(mkdtempSync(path.join(tmpdir(), 'paygate-prof-')), 'create.cpuprofile');
const env: Record<string, string> = { BENCH_CPU_PROF: profFile, BENCH_LOOP_DELAY: '1' };
const dbName = `paygate_bench_profile_${process.pid}`;
if (engine === 'postgres') {
  await onAdmin((c) => c.query(`create database "${dbName}"`));
  const u = new URL(POSTGRES_ADMIN_URL);
  u.pathname = `/${dbName}`;
  env.BENCH_DB = u.toString();
}
const app = await startChild<ServerInfo>('api-server.ts', { env, nodeArgs: [...SERVE_NODE_FLAGS] });
let seq = 0;
const prefix = `prof-${Date.now()}`;
const route = {
  method: 'POST' as const,
  path: '/v1/invoices',
  headers: { 'x-api-key': app.info.key },
  body: () => JSON.stringify({ order_id: `${prefix}-${++seq}`, asset: 'USDT_TRON', amount: '12.5', expires_in: 3600 }),
};
await cannon({ url: app.info.url, pid: app.info.pid, route, seconds: 1, connections });
const run = await cannon({ url: app.info.url, pid: app.info.pid, route, seconds, connections });
await stopChild(app.child);
if (engine === 'postgres') await onAdmin((c) => c.query(`drop database if exists "${dbName}" with (force)`));

const profile = JSON.parse(readFileSync(profFile, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const where = (url: string) => {
  if (!url) return '(native, GC, idle)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1] as string;
  const s = /\/(src\/[^/]+)\//.exec(url);
  if (s) return s[1] as string;
  if (url.startsWith('node:')) return 'node core';
  return path.basename(url);
};
const byFolder = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const [id, us] of selfUs) {
  const f = byId.get(id)!.callFrame;
  if (f.functionName === '(idle)' || f.functionName === '(program)') continue;
  const folder = f.functionName === '(garbage collector)' ? 'GC' : where(f.url);
  byFolder.set(folder, (byFolder.get(folder) ?? 0) + us);
  const fn = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : ''}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
}
const creations = run.requests;
const per = (us: number) => Math.round(us / creations);
const table = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (µs of CPU per creation, ≥ ${minUs})`);
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .filter(([, us]) => per(us) >= minUs)
    .forEach(([k, us]) => console.log(`${String(per(us)).padStart(6)}  ${k}`));
};
const total = [...byFolder.values()].reduce((a, b) => a + b, 0);
console.log(
  `${engine}: ${creations} creations in ${seconds} s (${Math.round(run.perSecond)}/s, p99 ${run.p99Ms} ms), ` +
    `${run.non2xx} non-2xx; profiled CPU ${per(total)} µs per creation (server /proc: ${Math.round(run.cpuUs)} µs)`,
);
table('by package or source folder', byFolder);
table('by function (self time)', byFunction);
