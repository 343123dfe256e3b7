import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import type { ServerInfo } from '../api-server.js';
import { cannon } from '../lib/cannon.js';
import { startChild, stopChild } from '../lib/child.js';
const s = JSON.parse(readFileSync('/tmp/paygate-scale-1000000/seeded.json', 'utf8'));
const { info, child } = await startChild<ServerInfo>('api-server.ts', { env: { BENCH_DB: s.file, BENCH_MERCHANT_ID: s.merchantId } });
let n = 0;
const route = { method: 'POST' as const, path: '/v1/invoices', headers: { 'x-api-key': info.key }, body: () => JSON.stringify({ order_id: `pg-${Date.now()}-${++n}`, asset: 'USDT_TRON', amount: '10', expires_in: 3600 }) };
await cannon({ url: info.url, route, seconds: 3, connections: 32, pid: info.pid });
const fds: Record<string, string> = {};
for (const fd of readdirSync(`/proc/${info.pid}/fd`)) { try { fds[fd] = readlinkSync(`/proc/${info.pid}/fd/${fd}`); } catch {} }
writeFileSync('/tmp/pages-fds.json', JSON.stringify(fds));
const tracer = spawn('strace', ['-f', '-e', 'trace=pread64', '-o', '/tmp/pages-strace.txt', '-p', String(info.pid)], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 500));
const x = await cannon({ url: info.url, route, seconds: 3, connections: 32, pid: info.pid });
tracer.kill('SIGINT'); await new Promise((r) => tracer.once('exit', r));
console.log(`creations during trace: ${Math.round(x.perSecond * 3)}`);
await stopChild(child);
