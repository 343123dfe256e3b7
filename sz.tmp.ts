import { appendBulkBlocks } from './src/devnet/bulk.js';
import { startDevnet } from './src/devnet/index.js';
const devnet = await startDevnet({ blockTimeMs: 0 });
const { first, last } = appendBulkBlocks(devnet.control.chain, { count: 300, payments: [] });
const post = async (p: string, b: unknown) => { const t = performance.now(); const r = await fetch(devnet.url + p, { method: 'POST', body: JSON.stringify(b) }); const buf = await r.arrayBuffer(); const t2 = performance.now(); const txt = new TextDecoder().decode(buf); const t3 = performance.now(); JSON.parse(txt); const t4 = performance.now(); return `${(buf.byteLength / 1e6).toFixed(2)} MB fetch ${(t2 - t).toFixed(1)} decode ${(t3 - t2).toFixed(1)} parse ${(t4 - t3).toFixed(1)} ms`; };
for (let i = 0; i < 3; i++) {
  console.log('range 100:', await post('/wallet/getblockbylimitnext', { startNum: first + 100, endNum: first + 200 }));
  console.log('infos 1:', await post('/wallet/gettransactioninfobyblocknum', { num: first + 150 }));
}
await devnet.close();
