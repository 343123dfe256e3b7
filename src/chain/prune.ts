/**
 * What the chain watcher keeps of java-tron's two large answers: a block range
 * (`getblockbylimitnext`, about 350 KB of JSON per mainnet block) and a block's transaction infos
 * (`gettransactioninfobyblocknum`, about 140 KB). Both are parsed and reduced on the parse worker
 * (parse-worker.ts) so the API's event loop never spends hundreds of milliseconds parsing while
 * the watcher catches up. Only the reduced objects cross to the main thread: copying
 * objects between threads costs about as much as parsing them, so a block crosses as its header
 * and the few transactions scanning reads, not as 300 full transactions.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */

import { infoOutcome } from './parse.js';
import { TRANSFER_TOPIC } from './trc20.js';

/**
 * One block reduced to what scanning reads: the header, the successful native TRX transfers
 * (receiver, owner, amount as the node printed them), the ids of the successful transactions
 * that ran the VM, contract calls and creations (the only ones whose infos can hold a token
 * transfer: a constructor can move tokens too), and every transaction whose owner is `owner` (the
 * hot wallet, `41…` hex), whatever its type and result: each is an act of that account's keys.
 */
export function scanBlock(b: any, owner?: string): any {
  if (!b || typeof b !== 'object') return b;
  const txs = Array.isArray(b.transactions) ? b.transactions : [];
  const transfers = [];
  const calls = [];
  const unsure = [];
  const acts = [];
  for (const t of txs) {
    // Ids are compared and stored in lower case (java-tron prints them so); one left out is no id.
    const id = t && typeof t.txID === 'string' ? t.txID.toLowerCase() : '';
    const ret = t && Array.isArray(t.ret) && t.ret[0] ? t.ret[0].contractRet : undefined;
    const c = t && t.raw_data && Array.isArray(t.raw_data.contract) ? t.raw_data.contract[0] : undefined;
    const type = c ? c.type : undefined;
    if (owner) {
      const act = actOf(id, c, ret, owner);
      if (act) acts.push(act);
    }
    const scanned = type === 'TransferContract' || type === 'TriggerSmartContract' || type === 'CreateSmartContract';
    // A result left out (or printed as the enum's zero, DEFAULT) is not a failure to skip: the
    // transfer may be a deposit (ask again).
    if (scanned && (typeof ret !== 'string' || ret === '' || ret === 'DEFAULT')) unsure.push(id);
    if (ret !== 'SUCCESS') continue;
    // A successful transfer or call without its id cannot be recorded once: ask again.
    if (scanned && id === '') unsure.push(id);
    else if (type === 'TriggerSmartContract' || type === 'CreateSmartContract') calls.push(id);
    else if (type === 'TransferContract') {
      const v = c.parameter && c.parameter.value && typeof c.parameter.value === 'object' ? c.parameter.value : {};
      // java-tron refuses a transfer of 0 and one without a receiver: left out, they are a broken
      // answer (the transfer may be a deposit), not a transfer to skip: ask again.
      if (typeof v.to_address !== 'string' || v.to_address === '' || v.amount === undefined || v.amount === null)
        unsure.push(id);
      else transfers.push({ txID: id, to: v.to_address, owner: v.owner_address, amount: v.amount });
    }
  }
  return {
    ...blockHead(b),
    transfers,
    calls,
    unsure,
    acts,
  };
}

/**
 * The fields of a contract that say what an act of the hot wallet moved or gave away: the
 * receiver (or contract called) and the amount as the node printed them. Votes and permission
 * changes carry neither; their type says what they did.
 */
const ACT_RECEIVER = ['to_address', 'receiver_address', 'contract_address'];
const ACT_AMOUNT = ['call_value', 'amount', 'frozen_balance', 'balance'];

/** The transaction as an act of `owner`'s keys, or null when another account owns it. */
function actOf(id: string, c: any, ret: unknown, owner: string): any {
  const v = c && c.parameter && c.parameter.value && typeof c.parameter.value === 'object' ? c.parameter.value : null;
  if (!v || typeof v.owner_address !== 'string' || v.owner_address.toLowerCase() !== owner) return null;
  const to = ACT_RECEIVER.map((k) => v[k]).find((x) => typeof x === 'string' && x !== '');
  const amount = ACT_AMOUNT.map((k) => v[k]).find((x) => x !== undefined && x !== null);
  return {
    txID: id,
    type: typeof c.type === 'string' ? c.type : '',
    result: typeof ret === 'string' ? ret : '',
    to: to ?? '',
    amount: amount ?? 0,
    asset: typeof v.asset_name === 'string' ? v.asset_name : '',
  };
}

/**
 * A range answer reduced to each block's header and the ids of all its transactions, whatever
 * their type or result (the proof that a transaction never landed, chain/absence.ts); anything
 * else unchanged.
 */
export function txIdsOfRange(answer: any): any {
  return eachBlock(answer, txIdsOfBlock);
}

/** A range answer `{block: [...]}` with every block mapped by `perBlock`; anything else (an `{"Error": …}` answer, `{}`) unchanged. */
export function eachBlock(answer: any, perBlock: (b: any) => any): any {
  if (!answer || typeof answer !== 'object' || !Array.isArray(answer.block)) return answer;
  return { block: answer.block.map(perBlock) };
}

/** One block of txIdsOfRange. */
export function txIdsOfBlock(b: any): any {
  if (!b || typeof b !== 'object') return b;
  const txs = Array.isArray(b.transactions) ? b.transactions : [];
  return {
    ...blockHead(b),
    txids: txs.map((t: any) => String((t && t.txID) ?? '').toLowerCase()),
  };
}

/** A block's id and the header fields the watcher reads (number, parent, time, producer). */
function blockHead(b: any): any {
  const h =
    b.block_header && b.block_header.raw_data && typeof b.block_header.raw_data === 'object'
      ? b.block_header.raw_data
      : {};
  return {
    blockID: b.blockID,
    block_header: {
      raw_data: {
        number: h.number,
        parentHash: h.parentHash,
        timestamp: h.timestamp,
        witness_address: h.witness_address,
      },
    },
  };
}

/**
 * A range answer `{block: [...]}` scanned, with the acts of `owner` (the hot wallet's `41…` hex)
 * kept; anything else (an `{"Error": …}` answer, `{}`) unchanged.
 */
export function scanBlockRange(answer: any, owner?: unknown): any {
  const hex = typeof owner === 'string' && owner !== '' ? owner.toLowerCase() : undefined;
  return eachBlock(answer, (b) => scanBlock(b, hex));
}

/**
 * The token `Transfer` logs of a block's infos (three topics, the first the Transfer topic) in
 * transactions whose receipt says SUCCESS (parse.ts infoOutcome), and the ids of every info the
 * node answered (so the caller can tell an info the node left out from one without logs). Which
 * emitter and receiver count is decided by the caller; a block's 300 infos cross to the main
 * thread as these few fields.
 */
export function scanTransferLogs(answer: any): any {
  if (!Array.isArray(answer)) return answer;
  const logs = [];
  const ids = [];
  const unsure = [];
  for (const info of answer) {
    if (!info || typeof info !== 'object') continue;
    const id = String(info.id ?? '').toLowerCase();
    ids.push(id);
    if (!Array.isArray(info.log) || info.log.length === 0) continue;
    const result = infoOutcome(info).result;
    // Logs under a receipt that states no result: neither counted nor dropped (ask again).
    if (result === 'UNKNOWN') unsure.push(id);
    if (result !== 'SUCCESS') continue;
    for (let index = 0; index < info.log.length; index++) {
      const l = info.log[index];
      const topics = l && Array.isArray(l.topics) ? l.topics : [];
      if (topics.length !== 3 || String(topics[0]).toLowerCase() !== TRANSFER_TOPIC) continue;
      logs.push({
        txID: id,
        blockNumber: info.blockNumber,
        index,
        address: String(l.address ?? ''),
        from: String(topics[1]),
        to: String(topics[2]),
        data: String(l.data ?? ''),
      });
    }
  }
  return { ids, logs, unsure };
}
