import type { ServerInfo } from '../api-server.js';
import { cannon, median } from './cannon.js';
import { SERVE_NODE_FLAGS } from '../../src/operations/heap.js';
import { startChild, stopChild } from './child.js';
const bare = await startChild<ServerInfo>('api-server.ts', { args: ['bare'] });
const app = await startChild<ServerInfo>('api-server.ts', { nodeArgs: [...SERVE_NODE_FLAGS] });
const pick = (xs: string[]) => xs[Math.floor(Math.random() * xs.length)];
const b = () => cannon({ url: bare.info.url, pid: bare.info.pid, route: { method: 'GET', path: '/bare' }, seconds: 3, connections: 32 });
const g = () => cannon({ url: app.info.url, pid: app.info.pid, route: { method: 'GET', path: () => `/v1/invoices/${pick(app.info.invoices)}`, headers: { 'x-api-key': app.info.key } }, seconds: 3, connections: 32 });
await b(); await g();
const ratios: number[] = []; const cpu: number[] = []; const bcpu: number[] = [];
for (let i = 0; i < Number(process.argv[2] ?? 5); i++) {
  const x = await b(); const y = await g();
  ratios.push(y.perSecond / x.perSecond); cpu.push(y.cpuUs); bcpu.push(x.cpuUs);
  console.log(`bare ${Math.round(x.perSecond)}/s ${x.cpuUs.toFixed(0)}µs  get ${Math.round(y.perSecond)}/s ${y.cpuUs.toFixed(0)}µs  ratio ${(y.perSecond / x.perSecond).toFixed(2)}`);
}
console.log(`MEDIAN ratio ${median(ratios).toFixed(3)} get cpu ${median(cpu).toFixed(1)} µs bare cpu ${median(bcpu).toFixed(1)} µs`);
await stopChild(bare.child); await stopChild(app.child);
