import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cannon } from './cannon.js';
const child = spawn(process.execPath, ['/tmp/bare3.mjs'], { stdio: ['ignore', 'pipe', 'inherit'] });
const line = await new Promise<string>((r) => createInterface({ input: child.stdout! }).once('line', r));
const info = JSON.parse(line);
for (let round = 0; round < 2; round++) for (const p of ["/bare", "/spin5", "/spin10", "/spin20", "/spin30"]) {
  const r = await cannon({ url: info.url, pid: info.pid, route: { method: 'GET', path: p }, seconds: 3, connections: 32 });
  console.log(`${p} ${Math.round(r.perSecond)}/s server ${r.cpuUs.toFixed(0)}µs`);
}
child.kill();
