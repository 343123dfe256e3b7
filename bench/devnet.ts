/**
 * Devnet read throughput with mainnet-sized blocks: ~300 transactions per block (2/3 USDT-like
 * TRC20 transfers, 1/3 TRX transfers), served through getblockbylimitnext (raw HTTP and through
 * the TronClient, which also parses) and gettransactioninfobyblocknum.
 * Run: npx tsx bench/devnet.ts [blocks=40] [txPerBlock=300]
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { TronwebTronClient } from '../src/chain/tronweb-client.js';
import { startDevnet } from '../src/devnet/index.js';

const BLOCKS = Number(process.argv[2] ?? 40);
const TX_PER_BLOCK = Number(process.argv[3] ?? 300);
const ROUNDS = 5;

const recipient = (i: number) =>
  `41${createHash('sha256')
    .update(`bench-recipient-${i % 2000}`)
    .digest('hex')
    .slice(0, 40)}`;

async function main(): Promise<void> {
  const devnet = await startDevnet({ blockTimeMs: 0, accounts: 10 });
  try {
    const chain = devnet.control.chain;
    const t0 = performance.now();
    let n = 0;
    for (let b = 0; b < BLOCKS; b++) {
      for (let i = 0; i < TX_PER_BLOCK; i++, n++) {
        const from = chain.funded[n % chain.funded.length]!;
        const asset = n % 3 === 0 ? 'TRX_TRON' : n % 3 === 1 ? 'USDT_TRON' : 'USDC_TRON';
        const answer = chain.transfer({ from, to: recipient(n), asset, amount: 1_000_000n + BigInt(n) });
        if (!('result' in answer)) throw new Error(`broadcast refused: ${JSON.stringify(answer)}`);
      }
      chain.mine(1);
    }
    const buildMs = performance.now() - t0;
    const first = 2;
    const last = chain.head.number;
    const blockCount = last - first + 1;
    const txCount = chain.blocks.slice(first).reduce((s, b) => s + b.txs.length, 0);
    console.log(
      `built ${blockCount} blocks, ${txCount} transactions (signed, validated, executed) in ${(buildMs / 1000).toFixed(1)} s = ${Math.round(txCount / (buildMs / 1000))} tx/s`,
    );

    const post = async (path: string, body: unknown): Promise<number> => {
      const res = await fetch(devnet.url + path, { method: 'POST', body: JSON.stringify(body) });
      return (await res.arrayBuffer()).byteLength;
    };
    const measure = async (label: string, pass: () => Promise<number>, rounds = ROUNDS) => {
      let bytes = 0;
      const start = performance.now();
      for (let r = 0; r < rounds; r++) bytes += await pass();
      const s = (performance.now() - start) / 1000;
      const blocks = blockCount * rounds;
      console.log(
        `${label.padEnd(58)} ${Math.round(blocks / s)
          .toString()
          .padStart(6)} blocks/s  ${Math.round((blocks * TX_PER_BLOCK) / s)
          .toString()
          .padStart(8)} tx/s  ${(bytes / s / 1e6).toFixed(1).padStart(6)} MB/s`,
      );
    };
    const range = async (): Promise<number> => {
      let bytes = 0;
      for (let s = first; s <= last; s += 100)
        bytes += await post('/wallet/getblockbylimitnext', { startNum: s, endNum: Math.min(last + 1, s + 100) });
      return bytes;
    };
    const rangeBy10 = async (): Promise<number> => {
      let bytes = 0;
      for (let s = first; s <= last; s += 10)
        bytes += await post('/wallet/getblockbylimitnext', { startNum: s, endNum: Math.min(last + 1, s + 10) });
      return bytes;
    };
    const infos = async (): Promise<number> => {
      let bytes = 0;
      for (let num = first; num <= last; num++) bytes += await post('/wallet/gettransactioninfobyblocknum', { num });
      return bytes;
    };
    const client = new TronwebTronClient({ fullHost: devnet.url, retries: 0, timeoutMs: 60_000 });
    const viaClient = async (): Promise<number> => {
      const blocks = await client.getBlocks(first, last + 1);
      if (blocks.length !== blockCount) throw new Error('missing blocks');
      return 0;
    };
    const infosViaClient = async (): Promise<number> => {
      for (let num = first; num <= last; num++) await client.getTransactionInfosByBlock(num);
      return 0;
    };

    await measure('getblockbylimitnext, first read (renders JSON, cold)', range, 1);
    await measure('getblockbylimitnext, 100 per call (warm)', range);
    await measure('getblockbylimitnext, 10 per call (warm)', rangeBy10);
    await measure('gettransactioninfobyblocknum, 1 block per call', infos);
    await measure('TronClient.getBlocks (HTTP + JSON.parse + typed records)', viaClient);
    await measure('TronClient.getTransactionInfosByBlock (HTTP + parse)', infosViaClient);
    console.log(
      `(node ${process.version}, ${TX_PER_BLOCK} tx/block; MB/s counts response bytes; client rows have no byte count)`,
    );
  } finally {
    await devnet.close();
  }
}

await main();
