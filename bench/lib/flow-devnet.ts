/**
 * Child process of bench/flow.ts: a devnet with manual block production (default solidity: the
 * solid block 19 behind the head) that appends mainnet-sized blocks (bench/lib/bulk.ts) on
 * command. Prints {url, head} when ready, then for each stdin line
 *   {"payments": "<file>"}  blocks full of the payments listed in the JSON file (txPerBlock each)
 *   {"blocks": n}           n blocks of unrelated transactions (confirmations)
 * appends the blocks at once and prints {first, last, solid}. A process of its own so that serving
 * blocks does not share the watcher's or the bench's thread, as a real node would not.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { appendBulkBlocks, type BulkPayment } from './bulk.js';
import { startDevnet } from '../../src/devnet/index.js';

const TX_PER_BLOCK = Number(process.env.FLOW_TX_PER_BLOCK ?? 300);
const devnet = await startDevnet({ blockTimeMs: 0 });
const chain = devnet.control.chain;
process.stdout.write(`${JSON.stringify({ url: devnet.url, head: chain.head.number })}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  const cmd = JSON.parse(line) as { payments?: string; blocks?: number };
  let r: { first: number; last: number };
  if (cmd.payments) {
    const raw = JSON.parse(readFileSync(cmd.payments, 'utf8')) as {
      toHex: string;
      amount: string;
      asset: BulkPayment['asset'];
    }[];
    const payments = raw.map((p, i): BulkPayment => ({
      offset: Math.floor(i / TX_PER_BLOCK),
      toHex: p.toHex,
      amount: BigInt(p.amount),
      asset: p.asset,
    }));
    r = appendBulkBlocks(chain, { count: Math.ceil(raw.length / TX_PER_BLOCK), txPerBlock: TX_PER_BLOCK, payments });
  } else {
    r = appendBulkBlocks(chain, { count: cmd.blocks ?? 1, txPerBlock: TX_PER_BLOCK });
  }
  process.stdout.write(`${JSON.stringify({ ...r, solid: chain.solidNumber })}\n`);
});
process.on('SIGTERM', () => void devnet.close().then(() => process.exit(0)));
