import { readFileSync } from 'node:fs';
import type { ServerInfo } from '../api-server.js';
import { cannon } from '../lib/cannon.js';
import { startChild, stopChild } from '../lib/child.js';
const s = JSON.parse(readFileSync('/tmp/paygate-scale-1000000/seeded.json', 'utf8'));
const big = process.argv[2] !== 'empty';
const out = `/tmp/prof-post-${big ? 'big' : 'empty'}/p.cpuprofile`;
const { info, child } = await startChild<ServerInfo>('api-server.ts', { env: { BENCH_CPU_PROF: out, ...(big ? { BENCH_DB: s.file, BENCH_MERCHANT_ID: s.merchantId } : {}) } });
let n = 0;
const route = { method: 'POST' as const, path: '/v1/invoices', headers: { 'x-api-key': info.key }, body: () => JSON.stringify({ order_id: `p3-${Date.now()}-${++n}`, asset: 'USDT_TRON', amount: '10', expires_in: 3600 }) };
for (let r = 0; r < 4; r++) { const x = await cannon({ url: info.url, route, seconds: 3, connections: 32, pid: info.pid }); console.log(`${big ? '1M' : 'empty'} ${Math.round(x.perSecond)}/s ${Math.round(x.cpuUs)} µs`); }
await stopChild(child);
