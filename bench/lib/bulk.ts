/**
 * Bulk history for benchmarks, on the devnet: appends many mainnet-sized blocks at once (about 300 transactions
 * each: USDT transfers with their `Transfer` logs, TRX transfers, other contract calls) without
 * executing them. Blocks share one set of template transactions whose JSON is rendered once, so
 * 30,000 blocks cost megabytes, not gigabytes; the headers are real (parent links, blockIDs),
 * the producer signature is a placeholder. Chosen blocks carry a customer payment instead of their
 * first template transaction. These transactions change no balance: they are history to scan.
 */
import { createHash, randomBytes } from 'node:crypto';
import { transferCalldata, TRANSFER_TOPIC, uintWord, addressWord } from '../../src/chain/trc20.js';
import {
  blockIdOf,
  headerJson,
  headerRawBytes,
  txTrieRoot,
  type InfoJson,
  type OwnJson,
  type StoredBlock,
  type StoredTx,
} from '../../src/devnet/block.js';
import { buildTransaction, refOf } from '../../src/devnet/builder.js';
import type { DevnetChain } from '../../src/devnet/chain.js';
import { cloneState } from '../../src/devnet/state.js';
import { DEVNET_TOKENS } from '../../src/devnet/keys.js';

export interface BulkPayment {
  /** Index of the block among the appended ones. */
  offset: number;
  /** `41…` hex receiver. */
  toHex: string;
  /** Base units of the asset. */
  amount: bigint;
  /** A TRC20 USDT transfer (default) or a native TRX transfer. */
  asset?: 'USDT_TRON' | 'TRX_TRON';
}

export interface BulkOptions {
  count: number;
  txPerBlock?: number;
  payments?: BulkPayment[];
}

/** Pre-rendered JSON of a block's transactions and of its infos (split where the block fields go). */
export interface BulkJson {
  txsHex: string;
  infoParts: string[];
}

const FAKE_SIG = '00'.repeat(65);
const BLOCK_FIELDS = '"blockNumber":-1,"blockTimeStamp":-2';
const randomHex = () => `41${randomBytes(20).toString('hex')}`;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function usdtTransfer(ref: StoredBlock, fromHex: string, toHex: string, amount: bigint): StoredTx {
  const usdt = DEVNET_TOKENS.find((t) => t.asset === 'USDT_TRON')!;
  const tx = buildTransaction(
    'TriggerSmartContract',
    { owner_address: fromHex, contract_address: usdt.hex, data: transferCalldata(toHex, amount) },
    refOf(ref),
    {
      feeLimit: 100_000_000,
    },
  );
  tx.signature = [FAKE_SIG];
  tx.ret = [{ contractRet: 'SUCCESS' }];
  const info: InfoJson = {
    id: tx.txID,
    fee: 345_000,
    contractResult: [''],
    contract_address: usdt.hex,
    receipt: { energy_usage_total: 64_285, net_usage: 345, result: 'SUCCESS' },
    log: [
      {
        address: usdt.hex.slice(2),
        topics: [TRANSFER_TOPIC, addressWord(fromHex), addressWord(toHex)],
        data: uintWord(amount),
      },
    ],
  };
  return { tx, info };
}

function trxTransfer(ref: StoredBlock, fromHex: string, toHex: string, amount: number): StoredTx {
  const tx = buildTransaction('TransferContract', { owner_address: fromHex, to_address: toHex, amount }, refOf(ref));
  tx.signature = [FAKE_SIG];
  tx.ret = [{ contractRet: 'SUCCESS' }];
  return { tx, info: { id: tx.txID, contractResult: [''], receipt: { net_usage: 268 } } };
}

function otherCall(ref: StoredBlock, fromHex: string): StoredTx {
  const tx = buildTransaction(
    'TriggerSmartContract',
    { owner_address: fromHex, contract_address: randomHex(), data: `a9059cbb${'0'.repeat(128)}` },
    refOf(ref),
    { feeLimit: 50_000_000 },
  );
  tx.signature = [FAKE_SIG];
  tx.ret = [{ contractRet: 'SUCCESS' }];
  return {
    tx,
    info: {
      id: tx.txID,
      fee: 1_000_000,
      contractResult: [''],
      contract_address: tx.raw_data.contract[0]!.parameter.value.contract_address,
      receipt: { energy_usage_total: 20_000, result: 'SUCCESS' },
    },
  };
}

function paymentTx(ref: StoredBlock, p: BulkPayment): StoredTx {
  return p.asset === 'TRX_TRON'
    ? trxTransfer(ref, randomHex(), p.toHex, Number(p.amount))
    : usdtTransfer(ref, randomHex(), p.toHex, p.amount);
}

/** A mainnet-like mix: 60 % USDT transfers, 35 % TRX transfers, 5 % other contract calls. */
function templateTxs(ref: StoredBlock, n: number): StoredTx[] {
  return Array.from({ length: n }, (_, i) => {
    const r = i % 20;
    if (r < 12) return usdtTransfer(ref, randomHex(), randomHex(), BigInt(1 + i) * 1_000_000n);
    if (r < 19) return trxTransfer(ref, randomHex(), randomHex(), 1_000_000 + i);
    return otherCall(ref, randomHex());
  });
}

function renderJson(txs: StoredTx[]): BulkJson {
  const infos = txs.map((t) => {
    const { id, fee, ...rest } = t.info;
    const head = JSON.stringify(fee ? { id, fee } : { id }).slice(0, -1);
    const tail = JSON.stringify(rest).slice(1);
    return `${head},${BLOCK_FIELDS}${tail === '}' ? '}' : `,${tail}`}`;
  });
  return { txsHex: JSON.stringify(txs.map((t) => t.tx)), infoParts: `[${infos.join(',')}]`.split(BLOCK_FIELDS) };
}

const CLOSE_BRACE = Buffer.from('}');

/**
 * The devnet's answers for blocks sharing `json`: the shared transactions are encoded once, so a
 * range of 100 mainnet-sized blocks costs a copy instead of building and encoding 35 MB of text
 * per request (the benchmarks measure the watcher, not the devnet).
 */
function ownJsonOf(json: BulkJson): OwnJson {
  let bytes: { txs: Buffer; infoParts: Buffer[] } | undefined;
  const encoded = () =>
    (bytes ??= { txs: Buffer.from(json.txsHex), infoParts: json.infoParts.map((p) => Buffer.from(p)) });
  return {
    block: (b) => [
      Buffer.from(`{"blockID":"${b.id}","block_header":${JSON.stringify(headerJson(b))},"transactions":`),
      encoded().txs,
      CLOSE_BRACE,
    ],
    infos: (b) => {
      const fields = Buffer.from(`"blockNumber":${b.number},"blockTimeStamp":${b.timestamp}`);
      return Buffer.concat(encoded().infoParts.flatMap((part, i) => (i === 0 ? [part] : [fields, part])));
    },
  };
}

export function appendBulkBlocks(chain: DevnetChain, opts: BulkOptions): { first: number; last: number } {
  const n = opts.txPerBlock ?? 300;
  const template = templateTxs(chain.head, n);
  const templateJson = ownJsonOf(renderJson(template));
  const templateRoot = txTrieRoot(template.map((t) => t.tx));
  const payments = new Map<number, BulkPayment[]>();
  for (const p of opts.payments ?? []) payments.set(p.offset, [...(payments.get(p.offset) ?? []), p]);
  const first = chain.head.number + 1;
  for (let i = 0; i < opts.count; i++) {
    const prev = chain.head;
    const number = prev.number + 1;
    let txs = template;
    let json = templateJson;
    let root = templateRoot;
    const paid = payments.get(i);
    if (paid) {
      txs = [...paid.map((p) => paymentTx(prev, p)), ...template.slice(paid.length)];
      json = ownJsonOf(renderJson(txs));
      root = txTrieRoot(txs.map((t) => t.tx));
      for (const t of txs.slice(0, paid.length)) chain.index.set(t.tx.txID, number);
    }
    const witness = chain.witnesses[number % chain.witnesses.length]!;
    const timestamp = prev.timestamp + 3_000;
    const hash = sha256(
      headerRawBytes({ timestamp, txTrieRoot: root, parentHash: prev.id, number, witness: witness.hex }),
    );
    const block: StoredBlock = {
      number,
      id: blockIdOf(number, hash),
      parentHash: prev.id,
      timestamp,
      witness: witness.hex,
      txTrieRoot: root,
      witnessSignature: FAKE_SIG,
      txs,
      ownJson: json,
    };
    chain.blocks.push(block);
    chain.solidNumber = Math.max(chain.solidNumber, number - chain.opts.solidLag);
  }
  // Later blocks and forks start from the state after the bulk (which changed no balance).
  chain.snapshots.clear();
  for (let k = chain.solidNumber; k <= chain.head.number; k++) chain.snapshots.set(k, cloneState(chain.live));
  return { first, last: chain.head.number };
}
