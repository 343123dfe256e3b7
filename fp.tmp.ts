import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
const BLOCKS = Number(process.argv[2] ?? 2000);
writeFileSync('/tmp/pay.json', '[]');
const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('bench/lib/bulk-devnet.ts')], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BULK_BLOCKS: String(BLOCKS), BULK_PAYMENTS: '/tmp/pay.json' } });
const line = await new Promise<string>((r) => createInterface({ input: child.stdout! }).once('line', r));
const node = JSON.parse(line) as { url: string; first: number; last: number };
const stat = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 }; };
const mode = process.argv[3] ?? 'fetch';
import http from 'node:http';
const agent = new http.Agent({ keepAlive: true });
function getHttp(p: string, body: unknown): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(node.url + p, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
      const len = Number(res.headers['content-length']);
      if (Number.isFinite(len)) {
        const out = new Uint8Array(len); let off = 0;
        res.on('data', (c: Buffer) => { out.set(c, off); off += c.length; });
        res.on('end', () => resolve(out.buffer));
      } else {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => { const b = Buffer.concat(chunks); resolve(b.buffer.slice(b.byteOffset, b.byteOffset + b.length)); });
      }
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}
async function get(p: string, body: unknown): Promise<ArrayBuffer> {
  if (mode.startsWith('http')) return getHttp(p, body);
  const r = await fetch(node.url + p, { method: 'POST', body: JSON.stringify(body) });
  return r.arrayBuffer();
}
const c0 = stat(child.pid!); const s0 = process.cpuUsage(); const t = performance.now();
for (let from = node.first; from <= node.last; from += 100) {
  const to = Math.min(node.last + 1, from + 100);
  const buf = await get('/wallet/getblockbylimitnext', { startNum: from, endNum: to });
  if (mode.endsWith('parse')) JSON.parse(new TextDecoder().decode(buf));
}
const ms = performance.now() - t; const c1 = stat(child.pid!); const s1 = process.cpuUsage(s0);
console.log(`${mode}: ${BLOCKS} blocks ${(BLOCKS / ms * 1000).toFixed(0)}/s; devnet user ${(c1.user - c0.user).toFixed(2)} sys ${(c1.sys - c0.sys).toFixed(2)}; client user ${(s1.user / 1e6).toFixed(2)} sys ${(s1.system / 1e6).toFixed(2)}; wall ${(ms / 1000).toFixed(2)} s`);
child.kill('SIGTERM');
