/**
 * Blocks as java-tron builds them: the header raw data is protobuf (BlockHeader.raw), the blockID
 * is the 8-byte number followed by bytes 8..32 of its sha256, and the producer signs that hash.
 * Blocks render once to JSON and the string is cached: range reads are the devnet's hot path.
 */
import { utils } from 'tronweb';
import { fromHexAddress } from '../chain/address.js';
import type { TronTransactionJson } from '../chain/tx-codec.js';
import type { DevnetKey } from './keys.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type InfoJson = Record<string, any>;

export interface StoredTx {
  tx: TronTransactionJson;
  /** Transaction info without blockNumber/blockTimeStamp (added when packed). */
  info: InfoJson;
}

export interface StoredBlock {
  number: number;
  id: string;
  parentHash: string;
  timestamp: number;
  witness: string;
  txTrieRoot: string;
  witnessSignature: string;
  txs: StoredTx[];
  /** Set on a block that renders its own JSON instead of rendering `txs`. */
  ownJson?: OwnJson;
}

/**
 * The JSON of a block that brings it already rendered: the benchmarks' history of mainnet-sized
 * blocks (bench/lib/bulk.ts) shares its transactions' JSON among thousands of blocks, which
 * rendering each block's `txs` would turn into gigabytes.
 */
export interface OwnJson {
  /** The block's JSON with hex addresses, in pieces. */
  block(b: StoredBlock): Buffer[];
  /** The JSON array of its transaction infos. */
  infos(b: StoredBlock): Buffer;
}

export const BLOCK_VERSION = 32;
const ZERO32 = '0'.repeat(64);

function varint(n: bigint): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80n) {
    out.push(Number((v & 0x7fn) | 0x80n));
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

function fieldVarint(field: number, v: number): number[] {
  return v === 0 ? [] : [...varint(BigInt(field << 3)), ...varint(BigInt(v))];
}

function fieldBytes(field: number, hex: string): number[] {
  const bytes = [...Buffer.from(hex, 'hex')];
  return bytes.length === 0 ? [] : [...varint(BigInt((field << 3) | 2)), ...varint(BigInt(bytes.length)), ...bytes];
}

/** protobuf BlockHeader.raw: timestamp=1, txTrieRoot=2, parentHash=3, number=7, witness_address=9, version=10. */
export function headerRawBytes(h: {
  timestamp: number;
  txTrieRoot: string;
  parentHash: string;
  number: number;
  witness: string;
}): Buffer {
  return Buffer.from([
    ...fieldVarint(1, h.timestamp),
    ...fieldBytes(2, h.txTrieRoot),
    ...fieldBytes(3, h.parentHash),
    ...fieldVarint(7, h.number),
    ...fieldBytes(9, h.witness),
    ...fieldVarint(10, BLOCK_VERSION),
  ]);
}

function sha256(buf: Uint8Array): string {
  return utils.ethersUtils.sha256(buf).slice(2);
}

export function blockIdOf(number: number, headerHash: string): string {
  return number.toString(16).padStart(16, '0') + headerHash.slice(16);
}

/** Merkle root over the transactions (leaf = sha256(raw_data ‖ signatures)); zero for an empty block. */
export function txTrieRoot(txs: TronTransactionJson[]): string {
  if (txs.length === 0) return ZERO32;
  let level = txs.map((t) => sha256(Buffer.from(t.raw_data_hex + (t.signature ?? []).join(''), 'hex')));
  while (level.length > 1) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i] as string;
      const b = level[i + 1];
      next.push(b === undefined ? a : sha256(Buffer.from(a + b, 'hex')));
    }
    level = next;
  }
  return level[0] as string;
}

export function sealBlock(p: {
  number: number;
  parentHash: string;
  timestamp: number;
  witness: DevnetKey;
  txs: StoredTx[];
}): StoredBlock {
  const root = txTrieRoot(p.txs.map((t) => t.tx));
  const header = {
    timestamp: p.timestamp,
    txTrieRoot: root,
    parentHash: p.parentHash,
    number: p.number,
    witness: p.witness.hex,
  };
  const hash = sha256(headerRawBytes(header));
  const sig = new utils.ethersUtils.SigningKey(`0x${p.witness.privateKey}`).sign(`0x${hash}`);
  return {
    number: p.number,
    id: blockIdOf(p.number, hash),
    parentHash: p.parentHash,
    timestamp: p.timestamp,
    witness: p.witness.hex,
    txTrieRoot: root,
    witnessSignature: sig.r.slice(2) + sig.s.slice(2) + (sig.v === 27 ? '1b' : '1c'),
    txs: p.txs,
  };
}

const ADDRESS_FIELDS = new Set([
  'owner_address',
  'to_address',
  'contract_address',
  'receiver_address',
  'witness_address',
]);

/** Rewrites `41…` hex address fields to base58, as java-tron does for `visible: true`. */
export function toVisible<T>(json: T): T {
  if (Array.isArray(json)) return json.map((x) => toVisible(x)) as T;
  if (json && typeof json === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(json)) {
      out[k] =
        ADDRESS_FIELDS.has(k) && typeof v === 'string' && /^41[0-9a-f]{40}$/i.test(v)
          ? fromHexAddress(v)
          : toVisible(v);
    }
    if ('raw_data' in out && 'txID' in out) out.visible = true;
    return out as T;
  }
  return json;
}

export function headerJson(b: StoredBlock): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  if (b.number) raw.number = b.number;
  raw.txTrieRoot = b.txTrieRoot;
  raw.witness_address = b.witness;
  raw.parentHash = b.parentHash;
  raw.version = BLOCK_VERSION;
  raw.timestamp = b.timestamp;
  return { raw_data: raw, witness_signature: b.witnessSignature };
}

export function blockJson(b: StoredBlock, detail = true): Record<string, unknown> {
  const out: Record<string, unknown> = { blockID: b.id, block_header: headerJson(b) };
  if (detail && b.txs.length > 0) out.transactions = b.txs.map((t) => t.tx);
  return out;
}

export function infoJson(b: StoredBlock, t: StoredTx): InfoJson {
  const { id, fee, ...rest } = t.info;
  const out: InfoJson = { id };
  if (fee) out.fee = fee;
  out.blockNumber = b.number;
  out.blockTimeStamp = b.timestamp;
  return { ...out, ...rest };
}

/** Renders blocks once per variant; the chain drops the cache of a block only when a fork removes it. */
export class BlockJsonCache {
  private readonly hex = new WeakMap<StoredBlock, string>();
  private readonly visible = new WeakMap<StoredBlock, string>();
  private readonly infos = new WeakMap<StoredBlock, string>();

  block(b: StoredBlock, visible: boolean): string | Buffer[] {
    if (b.ownJson && !visible) return b.ownJson.block(b);
    const cache = visible ? this.visible : this.hex;
    let s = cache.get(b);
    if (s === undefined) {
      const json = blockJson(b);
      s = JSON.stringify(visible ? toVisible(json) : json);
      cache.set(b, s);
    }
    return s;
  }

  /** The block's JSON as bytes, in pieces (a range answer is sent as its pieces). */
  blockBytes(b: StoredBlock, visible: boolean): Buffer[] {
    const json = this.block(b, visible);
    return typeof json === 'string' ? [Buffer.from(json)] : json;
  }

  infosBytes(b: StoredBlock): Buffer {
    return b.ownJson ? b.ownJson.infos(b) : Buffer.from(this.infosOf(b));
  }

  private infosOf(b: StoredBlock): string {
    let s = this.infos.get(b);
    if (s === undefined) {
      s = JSON.stringify(b.txs.map((t) => infoJson(b, t)));
      this.infos.set(b, s);
    }
    return s;
  }
}
