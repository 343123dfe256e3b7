// Scratch: serve on the 1M db under load; RSS, smaps_rollup, threads, and /metrics heap at peak.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { systemClock } from '../../src/clock.js';
import { openDatabase, writeTx } from '../../src/db/database.js';
import { startDevnet } from '../../src/devnet/index.js';
import { issueKey } from '../../src/keys/service.js';
import { cannon } from '../lib/cannon.js';
import { rssMb } from '../lib/child.js';
import { envFor, overdueExpired } from '../lib/seed.js';
const s = JSON.parse(readFileSync('/tmp/paygate-scale-1000000/seeded.json', 'utf8'));
const root = path.resolve(import.meta.dirname, '../..');
const devnet = await startDevnet({ blockTimeMs: 1000 });
const adminPort = 19000 + Math.floor(Math.random() * 1000);
const env = { ...process.env, ...envFor(s.file), HOST: '127.0.0.1', PORT: '0', ADMIN_PORT: String(adminPort), API_RATE_LIMIT_PER_IP: '1000000', API_RATE_LIMIT_PER_KEY: '1000000', TRON_FULL_NODE_URL: devnet.url, ...(process.env.XENV ? JSON.parse(process.env.XENV) : {}) };
const setup = openDatabase(s.file);
const key = (await issueKey(setup.db, systemClock, 'bench', s.merchantId)).api_key;
const ids = (await setup.db.selectFrom('invoices').select('id').where('merchant_id', '=', s.merchantId).limit(1000).execute()).map((r) => r.id);
await writeTx(setup.db, async (trx) => { await trx.deleteFrom('scanned_blocks').execute(); await trx.deleteFrom('chain_cursor').execute(); });
const child = spawn(process.execPath, [...(process.env.NODEARGS ? process.env.NODEARGS.split(' ') : []), path.join(root, 'bin/run.js'), 'serve'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
const pid = child.pid!;
const url = await new Promise<string>((resolve) => { let out = ''; child.stdout!.on('data', (d) => { out += d; const m = /serving (http:\/\/\S+)\/v1/.exec(out); if (m) resolve(m[1] as string); }); });
for (; !(await setup.db.selectFrom('chain_cursor').select('next_block').executeTakeFirst()); ) await new Promise((r) => setTimeout(r, 200));
await overdueExpired(setup.db, (l) => console.log(l));
const snap = async (label: string) => {
  const roll = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').split('\n').filter((l) => /^(Rss|Anonymous|Pss_File|Pss_Anon)/.test(l)).map((l) => l.replace(/\s+/g, ' ')).join(', ');
  const threads = readdirSync(`/proc/${pid}/task`).map((t) => readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim());
  const m = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
  const pick = (re: RegExp) => m.split('\n').filter((l) => re.test(l) && !l.startsWith('#')).map((l) => l.replace('paygate_nodejs_', '').replace(/ (\d+)$/, (_, v) => ` ${(Number(v) / 1048576).toFixed(1)}M`)).join('; ');
  const maps = readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n'); const regions: { name: string; size: number; rss: number }[] = []; let cur: { name: string; size: number; rss: number } | null = null;
  for (const l of maps) { const h = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(l); if (h) { cur = { name: h[3] || '[anon]', size: (parseInt(h[2], 16) - parseInt(h[1], 16)) / 1024, rss: 0 }; regions.push(cur); } else if (cur && l.startsWith('Rss:')) cur.rss = Number(l.split(/\s+/)[1]); }
  const anon = regions.filter((r) => r.name === '[anon]' || r.name === '[heap]'); const bySize = new Map<string, [number, number]>(); for (const r of anon) { const k = r.name === '[heap]' ? 'brk heap' : r.size >= 60000 && r.size <= 65536 ? 'arena-ish (~64MB)' : r.size === 256 ? '256K (v8 page)' : r.size < 1024 ? '<1MB' : r.size < 16384 ? '1-16MB' : '>=16MB'; const e = bySize.get(k) ?? [0, 0]; e[0]++; e[1] += r.rss; bySize.set(k, e); }
  console.log('  anon by region size: ' + [...bySize].map(([k, [c, r]]) => `${k}: ${c} maps ${(r / 1024).toFixed(1)} MB`).join('; '));
  console.log(`${label}: RSS ${rssMb(pid).toFixed(0)} MB | ${roll}\n  threads(${threads.length}): ${threads.join(',')}\n  ${pick(/heap_size_(total|used)_bytes|external_memory|heap_space_size_(used|total)_bytes.space="(new|old|code|large_object)"/)}`);
};
await snap('idle after scan');
const auth = { 'x-api-key': key };
let n = 0, peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
const reads = await cannon({ url, seconds: 5, connections: 32, route: { method: 'GET', path: () => `/v1/invoices/${ids[n++ % ids.length]}`, headers: auth } });
await snap('after reads');
const creations = await cannon({ url, seconds: 5, connections: 32, route: { method: 'POST', path: '/v1/invoices', headers: auth, body: () => JSON.stringify({ order_id: `rss-${Date.now()}-${++n}`, asset: 'USDT_TRON', amount: '10', expires_in: 3600 }) } });
clearInterval(sampler);
await snap('after creations');
if (process.env.SNAP) { process.kill(pid, 'SIGUSR2'); await new Promise((r) => setTimeout(r, 15000)); }
console.log(`peak ${peak.toFixed(0)} MB; reads ${Math.round(reads.perSecond)}/s creations ${Math.round(creations.perSecond)}/s; HWM ${Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024} MB`);
child.kill('SIGTERM'); await new Promise((r) => child.once('exit', r)); await setup.close(); await devnet.close();
