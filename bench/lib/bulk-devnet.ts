/**
 * Child process of bench/watcher.ts: a devnet holding BULK_BLOCKS mainnet-sized blocks
 * (bench/lib/bulk.ts) with the payments listed in the JSON file BULK_PAYMENTS, then manual
 * block production. Prints one JSON line {url, first, last} when ready. A process of its own so
 * that serving blocks does not share the watcher's thread (as a real node would not).
 */
import { readFileSync } from 'node:fs';
import { appendBulkBlocks, type BulkPayment } from './bulk.js';
import { startDevnet } from '../../src/devnet/index.js';

const count = Number(process.env.BULK_BLOCKS ?? 30_000);
const payments = (
  JSON.parse(readFileSync(String(process.env.BULK_PAYMENTS), 'utf8')) as {
    offset: number;
    toHex: string;
    amount: string;
  }[]
).map((p): BulkPayment => ({ ...p, amount: BigInt(p.amount) }));
const devnet = await startDevnet({ blockTimeMs: 0 });
const { first, last } = appendBulkBlocks(devnet.control.chain, { count, payments });
process.stdout.write(`${JSON.stringify({ url: devnet.url, first, last })}\n`);
process.on('SIGTERM', () => void devnet.close().then(() => process.exit(0)));
