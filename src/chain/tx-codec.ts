/**
 * Transaction bytes: decoding `raw_data_hex` (the protobuf a signature covers) into java-tron's JSON
 * shape, txID = sha256(raw_data), and signer recovery. Shared by the client (to check what it is
 * about to sign), the devnet (to validate broadcasts) and the fixture tests. The protobuf classes
 * are tronweb's own (`globalThis.TronWebProto`, registered by the static tronweb import), so the
 * client imports this module only when it builds or signs (txIdOf lives in tx-id.ts, without them).
 */
import { TronWeb, utils } from 'tronweb';

// The static import above registers the protobuf classes; the reference keeps it from being elided.
void TronWeb;

/* eslint-disable @typescript-eslint/no-explicit-any */
type Proto = Record<string, any>;
function proto(): Proto {
  const p = (globalThis as { TronWebProto?: Proto }).TronWebProto;
  if (!p) throw new Error('tronweb protobuf classes are not loaded');
  return p;
}

/** One contract of a transaction as java-tron prints it (hex addresses, default values omitted). */
export interface ContractJson {
  type: string;
  parameter: { value: Record<string, unknown>; type_url: string };
  Permission_id?: number;
}

export interface RawDataJson {
  contract: ContractJson[];
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration?: number;
  timestamp?: number;
  fee_limit?: number;
  data?: string;
}

/** A transaction as java-tron's HTTP API renders it. */
export interface TronTransactionJson {
  txID: string;
  raw_data: RawDataJson;
  raw_data_hex: string;
  signature?: string[];
  visible?: boolean;
  ret?: { contractRet?: string; fee?: number }[];
}

const RESOURCE_NAMES = ['BANDWIDTH', 'ENERGY', 'TRON_POWER'];
const RESOURCE_FIELDS = new Set(['resource']);
/** Protobuf `string` fields (the others that arrive as strings are bytes, base64 in jspb). */
const STRING_FIELDS = new Set(['permission_name']);
/** A permission's `type` enum as java-tron prints it. */
const PERMISSION_TYPES = ['Owner', 'Witness', 'Active'];

function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Converts a jspb `toObject()` into java-tron JSON: bytes (base64 there) as hex, defaults omitted. */
function toJavaTronJson(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const key = snake(k.replace(/List$/, ''));
    if (v === 0 || v === false || v === '' || v === undefined || v === null) continue;
    if (Array.isArray(v)) {
      if (v.length === 0) continue;
      out[key] = v.map((x) => (typeof x === 'object' && x !== null ? toJavaTronJson(x as Record<string, unknown>) : x));
    } else if (typeof v === 'string' && STRING_FIELDS.has(key)) {
      out[key] = v;
    } else if (typeof v === 'string') {
      out[key] = hexOf(Buffer.from(v, 'base64'));
    } else if (typeof v === 'number' && key === 'type') {
      out[key] = PERMISSION_TYPES[v] ?? v;
    } else if (typeof v === 'number' && RESOURCE_FIELDS.has(key)) {
      out[key] = RESOURCE_NAMES[v] ?? v;
    } else if (typeof v === 'object') {
      out[key] = toJavaTronJson(v as Record<string, unknown>);
    } else {
      out[key] = v;
    }
  }
  return out;
}

/** Decodes `raw_data_hex` into the `raw_data` JSON java-tron would print (hex addresses). */
export function decodeRawData(rawDataHex: string): RawDataJson {
  const P = proto();
  const raw = P.Transaction.raw.deserializeBinary(Buffer.from(rawDataHex, 'hex'));
  const contracts: ContractJson[] = raw.getContractList().map((c: any) => {
    const param = c.getParameter();
    const typeUrl: string = param.getTypeUrl();
    const type = typeUrl.slice(typeUrl.lastIndexOf('.') + 1);
    const cls = P[type];
    if (!cls) throw new Error(`unsupported contract type ${type}`);
    const value = toJavaTronJson(cls.deserializeBinary(param.getValue_asU8()).toObject());
    const json: ContractJson = { parameter: { value, type_url: typeUrl }, type };
    if (c.getPermissionId()) json.Permission_id = c.getPermissionId();
    return json;
  });
  const out: RawDataJson = {
    contract: contracts,
    ref_block_bytes: hexOf(raw.getRefBlockBytes_asU8()),
    ref_block_hash: hexOf(raw.getRefBlockHash_asU8()),
  };
  if (raw.getExpiration()) out.expiration = Number(raw.getExpiration());
  if (raw.getTimestamp()) out.timestamp = Number(raw.getTimestamp());
  if (raw.getFeeLimit()) out.fee_limit = Number(raw.getFeeLimit());
  const memo = hexOf(raw.getData_asU8());
  if (memo) out.data = memo;
  return out;
}

/** The protobuf bytes (hex) of a JSON `raw_data` (hex or base58 addresses), as tronweb encodes it. */
export function encodeRawData(tx: { raw_data: RawDataJson; visible?: boolean }): string {
  const pb = utils.transaction.txJsonToPb(tx);
  return utils.transaction.txPbToRawDataHex(pb).toLowerCase();
}

export { txIdOf } from './tx-id.js';

/**
 * The `41…` hex address whose key produced `signatureHex` over `txIdHex`, or null when the
 * signature is malformed. Accepts v = 27/28 (tronweb) and 0/1 (other signers).
 */
export function recoverSigner(txIdHex: string, signatureHex: string): string | null {
  const sig = signatureHex.replace(/^0x/, '');
  if (!/^[0-9a-fA-F]{130}$/.test(sig)) return null;
  try {
    let v = parseInt(sig.slice(128), 16);
    if (![0, 1, 27, 28].includes(v)) return null;
    v = v < 27 ? v + 27 : v;
    // java-tron accepts high-s signatures (old mainnet ones have them); ethers does not, so use the
    // equivalent low-s form (n - s, with the recovery bit flipped), which recovers the same key.
    let s = BigInt(`0x${sig.slice(64, 128)}`);
    if (s > SECP256K1_N / 2n) {
      s = SECP256K1_N - s;
      v = v === 27 ? 28 : 27;
    }
    const normalized = `0x${sig.slice(0, 64)}${s.toString(16).padStart(64, '0')}${v.toString(16)}`;
    const eth = utils.ethersUtils.recoverAddress(
      `0x${txIdHex.replace(/^0x/, '')}`,
      utils.ethersUtils.Signature.from(normalized),
    );
    return `41${eth.slice(2).toLowerCase()}`;
  } catch {
    return null;
  }
}

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** Serialized size of a signed transaction as java-tron charges bandwidth for it. */
export function bandwidthBytes(rawDataHex: string, signatureCount: number): number {
  const raw = rawDataHex.length / 2;
  // Transaction{raw_data=1, signature=2*n, ret=5}: tag+length per field, plus java-tron's
  // MAX_RESULT_SIZE_IN_TX (64) reserved for the result it appends.
  return raw + varintLen(raw) + 1 + signatureCount * 67 + 64;
}

function varintLen(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    len += 1;
  }
  return len;
}
