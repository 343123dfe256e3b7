import { appendBulkBlocks } from './src/devnet/bulk.js';
import { startDevnet } from './src/devnet/index.js';
import { BlockJsonCache } from './src/devnet/block.js';
const devnet = await startDevnet({ blockTimeMs: 0 });
const chain = devnet.control.chain;
const { first } = appendBulkBlocks(chain, { count: 300, payments: [] });
const cache = new BlockJsonCache();
for (let k = 0; k < 3; k++) {
  let t = performance.now();
  const parts: string[] = [];
  for (let n = first + 100; n < first + 200; n++) parts.push(cache.block(chain.blocks[n]!, false));
  const s = `{"block":[${parts.join(',')}]}`;
  const t1 = performance.now();
  const b = Buffer.from(s);
  const t2 = performance.now();
  let inf = 0; for (let n = first + 100; n < first + 200; n++) inf += Buffer.from(cache.infosOf(chain.blocks[n]!)).length;
  const t3 = performance.now();
  console.log(`build ${(t1 - t).toFixed(1)} ms, encode ${(t2 - t1).toFixed(1)} ms (${(b.length / 1e6).toFixed(1)} MB), 100 infos build+encode ${(t3 - t2).toFixed(1)} ms (${(inf / 1e6).toFixed(1)} MB)`);
}
await devnet.close();
