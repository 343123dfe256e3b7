/**
 * java-tron JSON (hex addresses, proto3 omission of default values) → the client's typed records.
 * Every numeric field may be absent (it was 0), so every read has a default.
 */
import { fromHexAddress } from './address.js';
import type { AccountResources, AccountState, ChainBlock, ChainBlockHeader, ChainTx, TxInfo } from './client.js';
import type { TronTransactionJson } from './tx-codec.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = Record<string, any>;

export function big(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) {
    // JSON.parse already rounded anything past 2^53: refuse it rather than book a wrong amount.
    if (!Number.isSafeInteger(v)) throw new Error(`node answered an integer beyond 2^53 (${v}); it cannot be read exactly`);
    return BigInt(v);
  }
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  return 0n;
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

export function isEmptyAnswer(j: unknown): boolean {
  return !j || (typeof j === 'object' && Object.keys(j as object).length === 0);
}

export function parseHeader(block: Json): ChainBlockHeader {
  const raw = block.block_header?.raw_data ?? {};
  return {
    number: num(raw.number),
    id: String(block.blockID ?? ''),
    parentHash: String(raw.parentHash ?? ''),
    timestamp: num(raw.timestamp),
    witness: base58(raw.witness_address) ?? '',
  };
}

export function parseTx(tx: Json): ChainTx {
  const raw = tx.raw_data ?? {};
  const contract = raw.contract?.[0] ?? {};
  const value = contract.parameter?.value ?? {};
  const out: ChainTx = {
    txID: String(tx.txID ?? ''),
    contractType: String(contract.type ?? ''),
    owner: base58(value.owner_address),
    expiration: num(raw.expiration),
    raw: tx as TronTransactionJson,
  };
  const ret = tx.ret?.[0]?.contractRet;
  if (typeof ret === 'string') out.contractRet = ret;
  const to = base58(value.to_address ?? value.receiver_address);
  if (to) out.to = to;
  if (out.contractType === 'TransferContract') out.amount = big(value.amount);
  if (out.contractType === 'TriggerSmartContract') {
    const c = base58(value.contract_address);
    if (c) out.contractAddress = c;
    out.data = String(value.data ?? '');
  }
  if (raw.fee_limit !== undefined) out.feeLimit = big(raw.fee_limit);
  return out;
}

export function parseBlock(block: Json): ChainBlock {
  return { ...parseHeader(block), transactions: (block.transactions ?? []).map(parseTx) };
}

function decodeHexText(hex: unknown): string | undefined {
  if (typeof hex !== 'string' || hex === '') return undefined;
  if (!/^([0-9a-fA-F]{2})+$/.test(hex)) return hex;
  return Buffer.from(hex, 'hex').toString('utf8');
}

export function parseInfo(info: Json): TxInfo {
  const r = info.receipt ?? {};
  const out: TxInfo = {
    txID: String(info.id ?? ''),
    blockNumber: num(info.blockNumber),
    blockTimestamp: num(info.blockTimeStamp),
    fee: big(info.fee),
    result: info.result === 'FAILED' ? 'FAILED' : 'SUCCESS',
    receiptResult: typeof r.result === 'string' ? r.result : 'SUCCESS',
    energyUsage: big(r.energy_usage),
    energyFee: big(r.energy_fee),
    energyUsageTotal: big(r.energy_usage_total),
    netUsage: big(r.net_usage),
    netFee: big(r.net_fee),
    logs: (info.log ?? []).map((l: Json, index: number) => ({ address: String(l.address ?? ''), topics: l.topics ?? [], data: l.data ?? '', index })),
  };
  const message = decodeHexText(info.resMessage);
  if (message !== undefined) out.message = message;
  const contract = base58(info.contract_address);
  if (contract) out.contractAddress = contract;
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
