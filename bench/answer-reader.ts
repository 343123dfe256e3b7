/**
 * The parse worker's two large answers read two ways, on this thread: TextDecoder + JSON.parse +
 * the prune step (as before), and the bytes' reader that keeps only what the prune step reads
 * (src/chain/project-json.ts). A range of 100 mainnet-sized bulk blocks (~35 MB) and one block's
 * infos (~140 KB), from a devnet in this process. Prints milliseconds per answer (min / median)
 * and checks that both ways give the same result.
 *
 *   npx tsx bench/answer-reader.ts [--rounds 8]
 */
import { isDeepStrictEqual } from 'node:util';
import { infoOutcome } from '../src/chain/parse.js';
import { projectJson } from '../src/chain/project-json.js';
import { scanBlockRange, scanBlockRangeBytes, scanTransferLogs, scanTransferLogsBytes } from '../src/chain/prune.js';
import { TRANSFER_TOPIC } from '../src/chain/trc20.js';
import { appendBulkBlocks } from '../src/devnet/bulk.js';
import { startDevnet } from '../src/devnet/index.js';

const at = process.argv.indexOf('--rounds');
const rounds = at > 0 ? Number(process.argv[at + 1]) : 8;

const devnet = await startDevnet({ blockTimeMs: 0 });
const { first } = appendBulkBlocks(devnet.control.chain, { count: 100, payments: [] });
const answer = async (path: string, body: unknown) => new Uint8Array(await (await fetch(devnet.url + path, { method: 'POST', body: JSON.stringify(body) })).arrayBuffer());
const range = await answer('/wallet/getblockbylimitnext', { startNum: first, endNum: first + 100 });
const infos = await answer('/wallet/gettransactioninfobyblocknum', { num: first });
await devnet.close();

const decoder = new TextDecoder();
const ways = {
  range: {
    bytes: range,
    parsed: (b: Uint8Array) => scanBlockRange(JSON.parse(decoder.decode(b))),
    read: (b: Uint8Array) => scanBlockRangeBytes(b, projectJson),
  },
  infos: {
    bytes: infos,
    parsed: (b: Uint8Array) => scanTransferLogs(JSON.parse(decoder.decode(b)), TRANSFER_TOPIC, infoOutcome),
    read: (b: Uint8Array) => scanTransferLogsBytes(b, projectJson, TRANSFER_TOPIC, infoOutcome),
  },
};

/** Milliseconds per answer of `repeat` reads in a row. */
function msEach(read: (b: Uint8Array) => unknown, bytes: Uint8Array, repeat: number): number {
  const t = performance.now();
  for (let k = 0; k < repeat; k++) read(bytes);
  return (performance.now() - t) / repeat;
}

for (const [name, w] of Object.entries(ways)) {
  if (!isDeepStrictEqual(w.parsed(w.bytes), w.read(w.bytes))) throw new Error(`${name}: the two ways disagree`);
  // Small answers are timed in batches so the figures are not the timer's resolution.
  const repeat = w.bytes.length > 1_000_000 ? 1 : 100;
  // Alternating, so both see the same machine.
  const parsed: number[] = [];
  const read: number[] = [];
  for (let r = 0; r < rounds; r++) {
    parsed.push(msEach(w.parsed, w.bytes, repeat));
    read.push(msEach(w.read, w.bytes, repeat));
  }
  const fmt = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `${s[0]!.toFixed(2)} / ${s[Math.floor(s.length / 2)]!.toFixed(2)} ms`;
  };
  console.log(`${name} (${(w.bytes.length / 1e6).toFixed(2)} MB): JSON.parse + prune ${fmt(parsed)}; bytes' reader ${fmt(read)} (min / median of ${rounds})`);
}
