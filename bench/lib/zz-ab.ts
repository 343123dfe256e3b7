import type { ServerInfo } from '../api-server.js';
import { cannon, median } from './cannon.js';
import { SERVE_NODE_FLAGS } from '../../src/operations/heap.js';
import { startChild, stopChild } from './child.js';
const envB = JSON.parse(process.argv[3] ?? '{}');
const a = await startChild<ServerInfo>('api-server.ts', { nodeArgs: [...SERVE_NODE_FLAGS] });
const b = await startChild<ServerInfo>('api-server.ts', { nodeArgs: [...SERVE_NODE_FLAGS], env: envB });
const pick = (xs: string[]) => xs[Math.floor(Math.random() * xs.length)];
const g = (s: { info: ServerInfo }) => cannon({ url: s.info.url, pid: s.info.pid, route: { method: 'GET', path: () => `/v1/invoices/${pick(s.info.invoices)}`, headers: { 'x-api-key': s.info.key } }, seconds: 3, connections: 32 });
await g(a); await g(b);
const r: number[] = []; const ca: number[] = []; const cb: number[] = [];
for (let i = 0; i < Number(process.argv[2] ?? 6); i++) {
  const x = i % 2 ? await g(b) : await g(a); const y = i % 2 ? await g(a) : await g(b);
  const [A, B] = i % 2 ? [y, x] : [x, y];
  r.push(B.perSecond / A.perSecond); ca.push(A.cpuUs); cb.push(B.cpuUs);
  console.log(`A ${Math.round(A.perSecond)}/s ${A.cpuUs.toFixed(1)}µs  B ${Math.round(B.perSecond)}/s ${B.cpuUs.toFixed(1)}µs  B/A ${(B.perSecond / A.perSecond).toFixed(3)}`);
}
console.log(`MEDIAN B/A ${median(r).toFixed(3)}  cpu A ${median(ca).toFixed(1)} B ${median(cb).toFixed(1)}`);
await stopChild(a.child); await stopChild(b.child);
