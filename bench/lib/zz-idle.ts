import type { ServerInfo } from '../api-server.js';
import { cpuSeconds, startChild, stopChild } from './child.js';
import { SERVE_NODE_FLAGS } from '../../src/operations/heap.js';
const app = await startChild<ServerInfo>('api-server.ts', { nodeArgs: [...SERVE_NODE_FLAGS] });
await new Promise((r) => setTimeout(r, 3000));
const c0 = cpuSeconds(app.info.pid);
await new Promise((r) => setTimeout(r, 10000));
console.log('idle app CPU %', ((cpuSeconds(app.info.pid) - c0) / 10 * 100).toFixed(2));
await stopChild(app.child);
