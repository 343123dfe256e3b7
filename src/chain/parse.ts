/**
 * java-tron JSON (hex addresses, proto3 omission of default values) → the client's typed records.
 * Every numeric field may be absent (it was 0), so every read has a default.
 */
import { fromHexAddress, toHexAddress } from './address.js';
import { TronNodeError } from './errors.js';
import type {
  AccountResources,
  AccountState,
  ChainBlock,
  ChainBlockHeader,
  ChainTx,
  ScanAct,
  ScanBlock,
  ScanInfos,
  ScanTransfer,
  ScanTransferLog,
  TxInfo,
} from './client.js';
import type { TronTransactionJson } from './tx-codec.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = Record<string, any>;

/** An amount the node's JSON could not carry exactly (beyond 2^53). */
export const UNREADABLE_AMOUNT = -1n;

export function big(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) {
    // JSON.parse already rounded anything past 2^53: refuse it rather than book a wrong amount.
    if (!Number.isSafeInteger(v))
      throw new Error(`node answered an integer beyond 2^53 (${v}); it cannot be read exactly`);
    return BigInt(v);
  }
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  return 0n;
}

/**
 * A transfer's amount, or UNREADABLE_AMOUNT past 2^53 sun (JSON.parse has rounded it): one such
 * transfer to anyone else must not stop the scan; one to a deposit address does (chain-match.ts).
 */
function exactOrUnreadable(v: unknown): bigint {
  try {
    return big(v);
  } catch {
    return UNREADABLE_AMOUNT;
  }
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : 0;
}

/** hex `41…` or base58 → base58; null for an empty or malformed address. */
export function base58(v: unknown): string | null {
  if (typeof v !== 'string' || v === '') return null;
  if (v.startsWith('T')) return v;
  try {
    return fromHexAddress(v);
  } catch {
    return null;
  }
}

function hexOf(address: string): string {
  try {
    return toHexAddress(address).toLowerCase();
  } catch {
    return '';
  }
}

export function isEmptyAnswer(j: unknown): boolean {
  return !j || (typeof j === 'object' && Object.keys(j as object).length === 0);
}

/**
 * A block's header. Its id and its parent's are never absent, and nor is its time past the genesis
 * block (proto3 leaves out only zeros): a header without them is a broken or lying answer, refused
 * (the scan asks again) rather than read as '' or 0, with which a fork would go unnoticed ('' ===
 * '') and a payment would look as made in 1970 (in time, at a fee schedule of none).
 */
export function parseHeader(block: Json): ChainBlockHeader {
  const raw = block.block_header?.raw_data ?? {};
  const header = {
    number: num(raw.number),
    id: String(block.blockID ?? ''),
    parentHash: String(raw.parentHash ?? ''),
    timestamp: num(raw.timestamp),
    witness: base58(raw.witness_address) ?? '',
  };
  const missing = !header.id
    ? 'blockID'
    : !header.parentHash
      ? 'parentHash'
      : header.timestamp <= 0 && header.number > 0
        ? 'timestamp'
        : null;
  if (missing)
    throw new TronNodeError(`node answered block ${header.number} without its ${missing}`, {
      path: 'block header',
      transient: true,
    });
  return header;
}

/** An own enumerable property computed on first read (base58 costs two sha256 per address). */
function lazy<T>(target: object, key: string, compute: () => T): void {
  let done = false;
  let value: T;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      if (!done) {
        value = compute();
        done = true;
      }
      return value;
    },
  });
}

/**
 * Addresses are converted to base58 only when read: the chain watcher reads a block's 300
 * transactions by their hex receiver (`toHex`) and converts the few that concern it.
 */
export function parseTx(tx: Json): ChainTx {
  const raw = tx.raw_data ?? {};
  const contract = raw.contract?.[0] ?? {};
  const value = contract.parameter?.value ?? {};
  const out = {
    txID: String(tx.txID ?? ''),
    contractType: String(contract.type ?? ''),
    expiration: num(raw.expiration),
    raw: tx as TronTransactionJson,
  } as ChainTx;
  lazy(out, 'owner', () => base58(value.owner_address));
  const ret = tx.ret?.[0]?.contractRet;
  if (typeof ret === 'string') out.contractRet = ret;
  const toRaw = value.to_address ?? value.receiver_address;
  if (typeof toRaw === 'string' && toRaw !== '') {
    out.toHex = receiverHex(toRaw);
    lazy(out, 'to', () => base58(toRaw) ?? undefined);
  }
  if (out.contractType === 'TransferContract') out.amount = big(value.amount);
  if (out.contractType === 'TriggerSmartContract') {
    const c = value.contract_address;
    if (typeof c === 'string' && c !== '') lazy(out, 'contractAddress', () => base58(c) ?? undefined);
    out.data = String(value.data ?? '');
  }
  if (raw.fee_limit !== undefined) out.feeLimit = big(raw.fee_limit);
  return out;
}

/** An address as the node printed it (hex or base58) → `41…` hex, lower case; '' when malformed. */
function receiverHex(v: unknown): string {
  if (typeof v !== 'string') return '';
  return v.startsWith('T') ? hexOf(v) : v.toLowerCase();
}

export function parseBlock(block: Json): ChainBlock {
  return { ...parseHeader(block), transactions: (block.transactions ?? []).map(parseTx) };
}

/** A block as the parse worker reduced it (prune.ts scanBlock). */
export function parseScanBlock(block: Json): ScanBlock {
  return {
    ...parseHeader(block),
    transfers: ((block.transfers ?? []) as Json[]).map(scanTransfer),
    calls: (block.calls ?? []) as string[],
    unsure: (block.unsure ?? []) as string[],
    acts: ((block.acts ?? []) as Json[]).map(scanAct),
  };
}

function scanAct(a: Json): ScanAct {
  return {
    txID: String(a.txID ?? ''),
    contractType: String(a.type ?? ''),
    result: String(a.result ?? ''),
    toHex: receiverHex(a.to),
    amount: exactOrUnreadable(a.amount),
    tokenId: decodeHexText(a.asset) ?? '',
  };
}

function scanTransfer(t: Json): ScanTransfer {
  return {
    txID: String(t.txID ?? ''),
    toHex: receiverHex(t.to),
    ownerHex: receiverHex(t.owner),
    amount: exactOrUnreadable(t.amount),
  };
}

/**
 * A block's infos as the parse worker reduced them (prune.ts scanTransferLogs). Anything but that
 * (`{}` for a block without transactions) holds nothing.
 */
export function parseScanInfos(answer: Json): ScanInfos {
  if (!answer || typeof answer !== 'object' || !Array.isArray(answer.ids)) return { ids: [], logs: [], unsure: [] };
  return {
    ids: answer.ids as string[],
    logs: (Array.isArray(answer.logs) ? (answer.logs as Json[]) : []).map(
      (l) => ({ ...l, blockNumber: Number(l.blockNumber) || 0 }) as ScanTransferLog,
    ),
    unsure: Array.isArray(answer.unsure) ? (answer.unsure as string[]) : [],
  };
}

function decodeHexText(hex: unknown): string | undefined {
  if (typeof hex !== 'string' || hex === '') return undefined;
  if (!/^([0-9a-fA-F]{2})+$/.test(hex)) return hex;
  return Buffer.from(hex, 'hex').toString('utf8');
}

/**
 * What a transaction info says about the outcome. java-tron prints enum zero values by omission:
 * the top-level `result` is absent when the code is SUCESS (sic) and `receipt.result` is absent
 * (DEFAULT) for transactions the VM did not run, such as plain TRX transfers, whose outcome is
 * the block's `ret[0].contractRet` instead. A missing or unknown value is therefore never read as
 * success: `SUCCESS` needs the receipt to say so, `FAILED` is any explicit other answer, and
 * anything else is `UNKNOWN` (ask the transaction's `contractRet`).
 */
export function infoOutcome(info: Json): { result: TxInfo['result']; receiptResult: string } {
  const r = info.receipt ?? {};
  const receiptResult = typeof r.result === 'string' && r.result !== '' ? r.result : 'DEFAULT';
  const top = info.result;
  const topFailed = top !== undefined && top !== 'SUCESS' && top !== 'SUCCESS';
  if (topFailed || (receiptResult !== 'DEFAULT' && receiptResult !== 'SUCCESS'))
    return { result: 'FAILED', receiptResult };
  return { result: receiptResult === 'SUCCESS' ? 'SUCCESS' : 'UNKNOWN', receiptResult };
}

export function parseInfo(info: Json): TxInfo {
  const r = info.receipt ?? {};
  const out: TxInfo = {
    txID: String(info.id ?? ''),
    blockNumber: num(info.blockNumber),
    blockTimestamp: num(info.blockTimeStamp),
    fee: big(info.fee),
    ...infoOutcome(info),
    energyUsage: big(r.energy_usage),
    energyFee: big(r.energy_fee),
    energyUsageTotal: big(r.energy_usage_total),
    netUsage: big(r.net_usage),
    netFee: big(r.net_fee),
    logs: (info.log ?? []).map((l: Json, index: number) => ({
      address: String(l.address ?? ''),
      topics: l.topics ?? [],
      data: l.data ?? '',
      index,
    })),
  };
  const message = decodeHexText(info.resMessage);
  if (message !== undefined) out.message = message;
  const contract = info.contract_address;
  if (typeof contract === 'string' && contract !== '')
    lazy(out, 'contractAddress', () => base58(contract) ?? undefined);
  return out;
}

export function parseAccount(address: string, a: Json): AccountState {
  const frozen = (type: string) => big((a.frozenV2 ?? []).find((f: Json) => (f.type ?? 'BANDWIDTH') === type)?.amount);
  const res = a.account_resource ?? {};
  return {
    address,
    exists: !isEmptyAnswer(a),
    balance: big(a.balance),
    frozenForEnergy: frozen('ENERGY'),
    frozenForBandwidth: frozen('BANDWIDTH'),
    delegatedOutEnergy: big(res.delegated_frozenV2_balance_for_energy),
    delegatedOutBandwidth: big(a.delegated_frozenV2_balance_for_bandwidth),
    acquiredEnergy: big(res.acquired_delegated_frozenV2_balance_for_energy),
    acquiredBandwidth: big(a.acquired_delegated_frozenV2_balance_for_bandwidth),
  };
}

export function parseResources(r: Json): AccountResources {
  return {
    freeNetLimit: big(r.freeNetLimit),
    freeNetUsed: big(r.freeNetUsed),
    netLimit: big(r.NetLimit),
    netUsed: big(r.NetUsed),
    energyLimit: big(r.EnergyLimit),
    energyUsed: big(r.EnergyUsed),
  };
}
