/**
 * What the chain watcher keeps of java-tron's two large answers: a block range
 * (`getblockbylimitnext`, about 350 KB of JSON per mainnet block) and a block's transaction infos
 * (`gettransactioninfobyblocknum`, about 140 KB). Both are read and reduced on the parse worker
 * (parse-worker.ts) so the API's event loop never spends hundreds of milliseconds parsing while
 * the watcher catches up. Only the reduced objects cross to the main thread: copying
 * objects between threads costs about as much as parsing them, so a block crosses as its header
 * and the few transactions scanning reads, not as 300 full transactions.
 *
 * The functions are self-contained (no imports at run time, no closures): the worker evaluates
 * their text.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */

import type { projectJson } from './project-json.js';

/** project-json.ts projectJson, passed in because the worker evaluates these functions' text alone. */
type Project = typeof projectJson;

/**
 * One block reduced to what scanning reads: the header, the successful native TRX transfers
 * (receiver, owner, amount as the node printed them) and the ids of the successful transactions
 * that ran the VM, contract calls and creations (the only ones whose infos can hold a token
 * transfer: a constructor can move tokens too).
 */
export function scanBlock(b: any): any {
  if (!b || typeof b !== 'object') return b;
  const h = b.block_header && b.block_header.raw_data && typeof b.block_header.raw_data === 'object' ? b.block_header.raw_data : {};
  const txs = Array.isArray(b.transactions) ? b.transactions : [];
  const transfers = [];
  const calls = [];
  const unsure = [];
  for (const t of txs) {
    // Ids are compared and stored in lower case (java-tron prints them so); one left out is no id.
    const id = t && typeof t.txID === 'string' ? t.txID.toLowerCase() : '';
    const ret = t && Array.isArray(t.ret) && t.ret[0] ? t.ret[0].contractRet : undefined;
    const c = t && t.raw_data && Array.isArray(t.raw_data.contract) ? t.raw_data.contract[0] : undefined;
    const type = c ? c.type : undefined;
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
      if (typeof v.to_address !== 'string' || v.to_address === '' || v.amount === undefined || v.amount === null) unsure.push(id);
      else transfers.push({ txID: id, to: v.to_address, owner: v.owner_address, amount: v.amount });
    }
  }
  return {
    blockID: b.blockID,
    block_header: { raw_data: { number: h.number, parentHash: h.parentHash, timestamp: h.timestamp, witness_address: h.witness_address } },
    transfers,
    calls,
    unsure,
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
  const h = b.block_header && b.block_header.raw_data && typeof b.block_header.raw_data === 'object' ? b.block_header.raw_data : {};
  const txs = Array.isArray(b.transactions) ? b.transactions : [];
  return {
    blockID: b.blockID,
    block_header: { raw_data: { number: h.number, parentHash: h.parentHash, timestamp: h.timestamp, witness_address: h.witness_address } },
    txids: txs.map((t: any) => String((t && t.txID) ?? '').toLowerCase()),
  };
}

/** A range answer `{block: [...]}` scanned; anything else (an `{"Error": …}` answer, `{}`) unchanged. */
export function scanBlockRange(answer: any): any {
  return eachBlock(answer, scanBlock);
}

/**
 * The token `Transfer` logs of a block's infos (three topics, the first the Transfer topic) in
 * transactions whose receipt says SUCCESS (`outcome` is parse.ts infoOutcome, passed in because
 * the worker evaluates this function's text alone), and the ids of every info the node answered
 * (so the caller can tell an info the node left out from one without logs). Which emitter and
 * receiver count is decided by the caller; a block's 300 infos cross to the main thread as these
 * few fields.
 */
export function scanTransferLogs(answer: any, transferTopic: string, outcome: (info: any) => { result: string }): any {
  if (!Array.isArray(answer)) return answer;
  const logs = [];
  const ids = [];
  const unsure = [];
  for (const info of answer) {
    if (!info || typeof info !== 'object') continue;
    const id = String(info.id ?? '').toLowerCase();
    ids.push(id);
    if (!Array.isArray(info.log) || info.log.length === 0) continue;
    const result = outcome(info).result;
    // Logs under a receipt that states no result: neither counted nor dropped (ask again).
    if (result === 'UNKNOWN') unsure.push(id);
    if (result !== 'SUCCESS') continue;
    for (let index = 0; index < info.log.length; index++) {
      const l = info.log[index];
      const topics = l && Array.isArray(l.topics) ? l.topics : [];
      if (topics.length !== 3 || String(topics[0]).toLowerCase() !== transferTopic) continue;
      logs.push({ txID: id, blockNumber: info.blockNumber, index, address: String(l.address ?? ''), from: String(topics[1]), to: String(topics[2]), data: String(l.data ?? '') });
    }
  }
  return { ids, logs, unsure };
}

/*
 * The same reductions read straight from the answer's bytes (project-json.ts): each projection
 * names exactly the fields its reduction above reads, so the result is the one the reduction gives
 * on the full parse (test/chain/project-json.test.ts compares them). A block is reduced as soon as
 * it is read. Each throws where JSON.parse would (the worker then parses the usual way, for the
 * usual error). `project` is project-json.ts projectJson.
 */

/** scanBlockRange of the answer's bytes. */
export function scanBlockRangeBytes(bytes: Uint8Array, project: Project): any {
  const tx = { ret: true, txID: true, raw_data: { contract: [{ type: true, parameter: { value: { to_address: true, owner_address: true, amount: true } } }] } };
  return rangeBytes(bytes, project, tx, scanBlock);
}

/** txIdsOfRange of the answer's bytes. */
export function txIdsOfRangeBytes(bytes: Uint8Array, project: Project): any {
  return rangeBytes(bytes, project, { txID: true }, txIdsOfBlock);
}

/**
 * A range answer read with each block's header and the transaction fields `tx` names, every block
 * reduced by `perBlock` as it is read; what scanBlockRange and txIdsOfRange answer for a range
 * (`{block: [...]}` alone) and for anything else (unchanged).
 */
export function rangeBytes(bytes: Uint8Array, project: Project, tx: object, perBlock: (b: any) => any): any {
  const answer: any = project(bytes, { '*': true, block: [{ blockID: true, block_header: { raw_data: true }, transactions: [tx] }, perBlock] } as any);
  return answer && typeof answer === 'object' && Array.isArray(answer.block) ? { block: answer.block } : answer;
}

/** scanTransferLogs of the answer's bytes. */
export function scanTransferLogsBytes(bytes: Uint8Array, project: Project, transferTopic: string, outcome: (info: any) => { result: string }): any {
  const info = { id: true, blockNumber: true, log: [{ topics: true, address: true, data: true }], receipt: { result: true }, result: true };
  return scanTransferLogs(project(bytes, [info] as any), transferTopic, outcome);
}

/*
 * What crosses to the main thread. Copying objects between threads costs about as much as building
 * them, and the watcher holds two ranges ahead while it matches one: the ~30,000 transfer and log
 * objects of each range lived through several young-generation collections and were promoted,
 * the main thread's largest cost after reading sockets (docs/decisions.md, release 3, eleventh
 * round). A block's transfers and a block's logs cross as one JSON text each, with the 48-bit
 * prefixes of their receivers (address-prefixes.ts prefixOfHex, passed in as `prefixOf`): the
 * watcher builds the objects only for the few blocks where a prefix is watched (chain-match.ts
 * mayPayWatched). The texts hold the reductions' values unchanged (JSON in, JSON out).
 */

/**
 * A scanned block (scanBlock) with its transfers as JSON text and `receivers`: the prefixes of
 * the receivers as the watcher reads them (parse.ts receiverHex, then prefixOfHex), or null when
 * one is base58 (the watcher then reads them all). A receiver that has no prefix can match nothing.
 */
export function packScanBlock(b: any, prefixOf: (hex: string) => number | null): any {
  if (!b || typeof b !== 'object' || !Array.isArray(b.transfers)) return b;
  let receivers: number[] | null = [];
  for (const t of b.transfers) {
    const to = t.to;
    if (typeof to !== 'string') continue;
    if (to.startsWith('T')) {
      receivers = null;
      break;
    }
    // Lower case as parse.ts receiverHex reads it, so both compute the same prefix.
    const p = prefixOf(to.toLowerCase());
    if (p !== null) receivers.push(p);
  }
  return { ...b, transfers: JSON.stringify(b.transfers), receivers };
}

/**
 * A block's scanned logs (scanTransferLogs) with the logs as JSON text, `receivers` (the prefixes
 * of `41` + the last 40 digits of each log's receiver topic, as the watcher reads them), and
 * `logBlocks`: each distinct block number the logs name (as the client reads it: a number, else
 * 0) with the first log's transaction, for the check that every log is of the block asked for.
 */
export function packTransferLogs(found: any, prefixOf: (hex: string) => number | null): any {
  if (!found || typeof found !== 'object' || !Array.isArray(found.logs)) return found;
  const receivers = [];
  const logBlocks = [];
  const seen = new Set();
  for (const l of found.logs) {
    const p = prefixOf(`41${l.to.slice(-40).toLowerCase()}`);
    if (p !== null) receivers.push(p);
    const blockNumber = Number(l.blockNumber) || 0;
    if (!seen.has(blockNumber)) {
      seen.add(blockNumber);
      logBlocks.push({ txID: l.txID, blockNumber });
    }
  }
  return { ...found, logs: JSON.stringify(found.logs), receivers, logBlocks };
}
