/**
 * Builds unsigned transactions the way a java-tron node does for `/wallet/createtransaction`,
 * `/wallet/triggersmartcontract` and friends: real protobuf raw data (tronweb's own encoder, so
 * tronweb's checks on the answer pass), TAPOS fields from the head block, expiration head + 60 s.
 * Also signs, for the control API's customer payments.
 */
import { utils } from 'tronweb';
import { txIdOf, type TronTransactionJson } from '../chain/tx-codec.js';
import type { StoredBlock } from './block.js';

export interface RefBlock {
  number: number;
  id: string;
  timestamp: number;
}

export function tapos(ref: RefBlock): { ref_block_bytes: string; ref_block_hash: string } {
  return { ref_block_bytes: ref.number.toString(16).slice(-4).padStart(4, '0'), ref_block_hash: ref.id.slice(16, 32) };
}

export function refOf(b: StoredBlock): RefBlock {
  return { number: b.number, id: b.id, timestamp: b.timestamp };
}

export function buildTransaction(
  type: string,
  value: Record<string, unknown>,
  ref: RefBlock,
  opts: { feeLimit?: number; expirationMs?: number; visible?: boolean; permissionId?: number } = {},
): TronTransactionJson {
  const contract: Record<string, unknown> = {
    parameter: { value, type_url: `type.googleapis.com/protocol.${type}` },
    type,
  };
  if (opts.permissionId) contract.Permission_id = opts.permissionId;
  const raw: Record<string, unknown> = {
    contract: [contract],
    ...tapos(ref),
    expiration: ref.timestamp + (opts.expirationMs ?? 60_000),
  };
  if (opts.feeLimit) raw.fee_limit = opts.feeLimit;
  raw.timestamp = ref.timestamp;
  const tx = {
    visible: opts.visible ?? false,
    txID: '',
    raw_data: raw,
    raw_data_hex: '',
  } as unknown as TronTransactionJson;
  const pb = utils.transaction.txJsonToPb(tx);
  tx.raw_data_hex = utils.transaction.txPbToRawDataHex(pb).toLowerCase();
  tx.txID = txIdOf(tx.raw_data_hex);
  return tx;
}

/** Signs the txID with secp256k1; the last byte is 1b/1c, as tronweb writes it. */
export function signTransaction(tx: TronTransactionJson, privateKey: string): TronTransactionJson {
  const sig = new utils.ethersUtils.SigningKey(`0x${privateKey.replace(/^0x/, '')}`).sign(`0x${tx.txID}`);
  const signature = sig.r.slice(2) + sig.s.slice(2) + sig.v.toString(16);
  return { ...tx, signature: [...(tx.signature ?? []), signature] };
}
