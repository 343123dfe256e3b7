import { readFileSync } from 'node:fs';
import type { ServerInfo } from '../api-server.js';
import { cannon } from '../lib/cannon.js';
import { startChild, stopChild } from '../lib/child.js';
const s = JSON.parse(readFileSync('/tmp/paygate-scale-1000000/seeded.json', 'utf8'));
const big = process.argv[2] !== 'empty';
const { info, child } = await startChild<ServerInfo>('api-server.ts', { env: big ? { BENCH_DB: s.file, BENCH_MERCHANT_ID: s.merchantId } : {} });
const io = () => Object.fromEntries(readFileSync(`/proc/${info.pid}/io`, 'utf8').trim().split('\n').map((l) => { const [k, v] = l.split(': '); return [k, Number(v)]; }));
let n = 0;
const route = { method: 'POST' as const, path: '/v1/invoices', headers: { 'x-api-key': info.key }, body: () => JSON.stringify({ order_id: `io-${Date.now()}-${++n}`, asset: 'USDT_TRON', amount: '10', expires_in: 3600 }) };
await cannon({ url: info.url, route, seconds: Number(process.env.WARM ?? 2), connections: 32, pid: info.pid });
for (let r = 0; r < 3; r++) {
  const a = io();
  const x = await cannon({ url: info.url, route, seconds: 4, connections: 32, pid: info.pid });
  const b = io();
  const c = x.perSecond * 4;
  console.log(`${big ? '1M' : 'empty'}: ${Math.round(x.perSecond)}/s p99 ${x.p99Ms} ms ${Math.round(x.cpuUs)} µs CPU; per creation: disk read ${((b.read_bytes - a.read_bytes) / c / 1024).toFixed(1)} KB, rchar ${((b.rchar - a.rchar) / c / 1024).toFixed(1)} KB, read calls ${((b.syscr - a.syscr) / c).toFixed(1)}, written ${((b.write_bytes - a.write_bytes) / c / 1024).toFixed(1)} KB`);
}
await stopChild(child);
