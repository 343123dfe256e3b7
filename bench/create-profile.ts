/**
 * Where one invoice creation's CPU goes: the app as `serve` builds it (bench/api-server.ts) under
 * POST /v1/invoices only, profiled by V8's sampling profiler from ready to stop, then the samples
 * summed by function (self time) and by the package or source folder each function lives in,
 * divided by the creations served: µs of CPU per creation. Also the event loop's delay p99 under
 * that load (monitorEventLoopDelay, in the server). Prints lines above `--min` µs.
 *
 * The samples are the main thread's wall time while it is not idle: a COMMIT's fsync (inside
 * better-sqlite3's `run`) and time the machine's other load takes the core away count too, so the
 * profiled total exceeds the CPU time /proc reports, and the shares are what to read. Native
 * functions (no source) are split by the JavaScript function that called them; the inclusive time
 * of each src function takes in what it does synchronously before its first await (building and
 * compiling its query with kysely, say). Statements: each distinct SQL sent, per creation; on
 * SQLite with the time spent inside SQLite.
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
const statementsFile = path.join(path.dirname(profFile), 'statements.json');
const env: Record<string, string> = {
  BENCH_CPU_PROF: profFile,
  BENCH_LOOP_DELAY: '1',
  BENCH_STATEMENTS: statementsFile,
};
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
// The warm-up is profiled too (the profile runs from ready to stop): its creations count.
const warm = await cannon({ url: app.info.url, pid: app.info.pid, route, seconds: 1, connections });
const run = await cannon({ url: app.info.url, pid: app.info.pid, route, seconds, connections });
await stopChild(app.child);
if (engine === 'postgres') await onAdmin((c) => c.query(`drop database if exists "${dbName}" with (force)`));

const profile = JSON.parse(readFileSync(profFile, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
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
const IDLE = new Set(['(idle)', '(program)', '(root)']);
const nameOf = (f: Node['callFrame']) =>
  `${f.functionName || '(anonymous)'}${f.url ? ` ${path.basename(f.url)}:${f.lineNumber + 1}` : ''}`;
/** The nearest caller with a source, for a native function. */
const callerOf = (id: number): string => {
  for (let p = parentOf.get(id); p !== undefined; p = parentOf.get(p)) {
    const f = byId.get(p)!.callFrame;
    if (f.url) return nameOf(f);
  }
  return '?';
};
const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
const byFolder = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const [id, us] of selfUs) {
  const f = byId.get(id)!.callFrame;
  if (IDLE.has(f.functionName)) continue;
  const gc = f.functionName === '(garbage collector)';
  add(byFolder, gc ? 'GC' : where(f.url), us);
  add(byFunction, f.url || gc ? nameOf(f) : `${nameOf(f)} ← ${callerOf(id)}`, us);
}
// Inclusive time of the src functions, each counted once on a stack that recurses.
const inclusive = new Map<string, number>();
const root = profile.nodes.find((n) => !parentOf.has(n.id))!;
const walk = (id: number, onStack: Set<string>): number => {
  const n = byId.get(id)!;
  const f = n.callFrame;
  let us = IDLE.has(f.functionName) ? 0 : (selfUs.get(id) ?? 0);
  const key = /\/src\//.test(f.url) ? nameOf(f) : null;
  const fresh = key !== null && !onStack.has(key);
  if (fresh) onStack.add(key);
  for (const c of n.children ?? []) us += walk(c, onStack);
  if (fresh) {
    onStack.delete(key);
    add(inclusive, key, us);
  }
  return us;
};
walk(root.id, new Set());

const statements = JSON.parse(readFileSync(statementsFile, 'utf8')) as Record<string, [number, number]>;
// Creations as the server made them (the invoice rows inserted): the load generator does not count
// the requests still in flight when a run ends.
const inserts = Object.entries(statements).find(([sql]) => sql.startsWith('insert into "invoices"'));
const creations = inserts ? inserts[1][0] : warm.requests + run.requests;
const per = (us: number) => Math.round(us / creations);
const table = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (µs per creation, ≥ ${minUs})`);
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .filter(([, us]) => per(us) >= minUs)
    .forEach(([k, us]) => console.log(`${String(per(us)).padStart(6)}  ${k}`));
};
const total = [...byFolder.values()].reduce((a, b) => a + b, 0);
console.log(
  `${engine}: ${run.requests} creations in ${seconds} s (${Math.round(run.perSecond)}/s, p99 ${run.p99Ms} ms), ` +
    `${run.non2xx} non-2xx; profiled ${per(total)} µs per creation over ${creations} (the warm-up's included); ` +
    `server CPU (/proc) ${Math.round(run.cpuUs)} µs per creation`,
);
table('by package or source folder', byFolder);
table('by function (self time; a native one with its caller)', byFunction);
table('src functions, inclusive (what each runs before its first await)', inclusive);

const rows = Object.entries(statements).sort((a, b) => b[1][0] - a[1][0]);
const count = rows.reduce((a, [, [n]]) => a + n, 0);
console.log(
  `\nstatements per creation: ${(count / creations).toFixed(2)} (count${engine === 'sqlite' ? ', µs inside SQLite' : ''}, ≥ 0.05 a creation)`,
);
for (const [sql, [n, us]] of rows) {
  if (n / creations < 0.05) continue;
  const time = engine === 'sqlite' ? `${String(per(us)).padStart(6)} µs  ` : '';
  console.log(`${(n / creations).toFixed(2).padStart(6)}  ${time}${sql.length > 150 ? `${sql.slice(0, 150)}…` : sql}`);
}
