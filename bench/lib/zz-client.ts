import type { ServerInfo } from '../api-server.js';
import { cannon, type Route } from './cannon.js';
import { SERVE_NODE_FLAGS } from '../../src/operations/heap.js';
import { startChild, stopChild } from './child.js';
const bare = await startChild<ServerInfo>('api-server.ts', { args: ['bare'] });
const app = await startChild<ServerInfo>('api-server.ts', { nodeArgs: [...SERVE_NODE_FLAGS] });
const pick = (xs: string[]) => xs[Math.floor(Math.random() * xs.length)];
const one = app.info.invoices[0];
const routes: Record<string, [ServerInfo, Route]> = {
  bareStatic: [bare.info, { method: 'GET', path: '/bare' }],
  bareDynamic: [bare.info, { method: 'GET', path: () => '/bare' }],
  getStatic: [app.info, { method: 'GET', path: `/v1/invoices/${one}`, headers: { 'x-api-key': app.info.key } }],
  getDynamic: [app.info, { method: 'GET', path: () => `/v1/invoices/${pick(app.info.invoices)}`, headers: { 'x-api-key': app.info.key } }],
};
for (let round = 0; round < 2; round++) for (const [name, [info, route]] of Object.entries(routes)) {
  const c0 = process.cpuUsage();
  const r = await cannon({ url: info.url, pid: info.pid, route, seconds: 3, connections: 32 });
  const c = process.cpuUsage(c0);
  console.log(`${name.padEnd(12)} ${Math.round(r.perSecond)}/s server ${r.cpuUs.toFixed(0)}µs client ${((c.user + c.system) / r.requests).toFixed(0)}µs per request`);
}
await stopChild(bare.child); await stopChild(app.child);
