/**
 * TronClient over the java-tron HTTP API. Every network call goes through NodeHttp (timeouts,
 * retries, API key, typed errors); tronweb is used offline only, to build transactions from a
 * reference block we fetched ourselves and to sign them. Nothing here knows which node it talks to.
 * tronweb (with ethers inside, ~51 MB of memory) and the protobuf half of tx-codec are imported on
 * the first build or sign, so a `serve` that only watches and answers the API never loads them.
 */
import type { TronWeb } from 'tronweb';
import { toHexAddress } from './address.js';
import type {
  AccountResources,
  AccountState,
  BroadcastResult,
  BuildOptions,
  ChainBlock,
  ChainBlockHeader,
  ChainTx,
  Resource,
  ScanBlock,
  ScanInfos,
  BlockTxIds,
  TronClient,
  TxInfo,
} from './client.js';
import { RETRYABLE_BROADCAST_CODES, TronNodeError, type BroadcastCode } from './errors.js';
import { NodeHttp, type NodeHttpOptions } from './http.js';
import { ParseWorker, type PruneKind } from './parse-worker.js';
import {
  isEmptyAnswer,
  parseAccount,
  parseBlock,
  parseHeader,
  parseInfo,
  parseResources,
  parseScanBlock,
  parseScanInfos,
  parseTx,
} from './parse.js';
import { addressWord, decodeTransferCall, uintWord } from './trc20.js';
import type { TronTransactionJson } from './tx-codec.js';
import { txIdOf } from './tx-id.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = Record<string, any>;

export type TronClientOptions = NodeHttpOptions;

/** The most blocks java-tron returns from one getblockbylimitnext call. */
export const BLOCK_RANGE_LIMIT = 100;
const DEFAULT_EXPIRATION_MS = 60_000;
const MAX_EXPIRATION_MS = 24 * 3600_000;

/** What building and signing need, loaded on first use. */
interface Offline {
  tw: TronWeb;
  encodeRawData: (tx: TronTransactionJson) => string;
}

async function loadOffline(fullHost: string): Promise<Offline> {
  const [{ TronWeb }, { encodeRawData }] = await Promise.all([import('tronweb'), import('./tx-codec.js')]);
  // Used offline only (building from our own reference block, signing); it makes no request.
  return { tw: new TronWeb({ fullHost }), encodeRawData };
}

interface RefBlock {
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  timestamp: number;
}

/**
 * Appends the contiguous run of `blocks` starting at `from` (a gap means the node does not have
 * the rest yet); true when the whole range [from, to) was there.
 */
function appendRun<B extends { number: number }>(out: B[], blocks: B[], from: number, to: number): boolean {
  blocks.sort((a, b) => a.number - b.number);
  for (const [i, b] of blocks.entries()) {
    if (b.number !== from + i) return false;
    out.push(b);
  }
  return blocks.length >= to - from;
}

function safeNumber(v: bigint, what: string): number {
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${what} out of range: ${v}`);
  return Number(v);
}

function hexMessage(m: unknown): string {
  if (typeof m !== 'string') return '';
  return /^([0-9a-fA-F]{2})+$/.test(m) ? Buffer.from(m, 'hex').toString('utf8') : m;
}

export class TronwebTronClient implements TronClient {
  readonly http: NodeHttp;
  private offlineLoad: Promise<Offline> | null = null;
  /** Block ranges and block infos (the watcher's large answers) are parsed off the event loop. */
  private readonly parser = new ParseWorker();

  constructor(opts: TronClientOptions) {
    this.http = new NodeHttp(opts);
  }

  /** tronweb and the transaction codec, imported once; a failed import is tried again next time. */
  private offline(): Promise<Offline> {
    this.offlineLoad ??= loadOffline(this.http.fullHost).catch((e: unknown) => {
      this.offlineLoad = null;
      throw e;
    });
    return this.offlineLoad;
  }

  /** Releases the parse worker for good: a call still under way gets an error, never a new thread. */
  async close(): Promise<void> {
    await this.parser.close();
  }

  async getHeadBlock(): Promise<ChainBlockHeader> {
    return parseHeader(await this.http.post<Json>('/wallet/getnowblock', {}));
  }

  /**
   * `{}` from a node that has no solid block to give (its solidity API not running): height 0, so
   * nothing becomes final while the scan goes on. A header with fields left out is refused.
   */
  async getSolidBlock(): Promise<ChainBlockHeader> {
    const answer = await this.http.post<Json>('/walletsolidity/getnowblock', {});
    return isEmptyAnswer(answer)
      ? { number: 0, id: '', parentHash: '', timestamp: 0, witness: '' }
      : parseHeader(answer);
  }

  async getBlock(num: number): Promise<ChainBlock | null> {
    const b = await this.http.post<Json>('/wallet/getblockbynum', { num });
    return isEmptyAnswer(b) ? null : parseBlock(b);
  }

  async getBlockId(num: number, opts: { solid?: boolean } = {}): Promise<string | null> {
    const path = opts.solid ? '/walletsolidity/getblockbynum' : '/wallet/getblockbynum';
    const b = await this.http.post<Json>(path, { num });
    if (isEmptyAnswer(b)) return null;
    // Only the id is read: mainnet's genesis block holds amounts beyond 2^53, which parseBlock refuses.
    const id = typeof b.blockID === 'string' ? b.blockID.toLowerCase() : '';
    if (!/^[0-9a-f]{64}$/.test(id))
      throw new TronNodeError(`node answered block ${num} without a readable blockID`, { path, transient: true });
    return id;
  }

  async getBlocks(start: number, endExclusive: number): Promise<ChainBlock[]> {
    return this.blockRun(start, endExclusive, parseBlock);
  }

  async getBlockTxIds(start: number, endExclusive: number): Promise<BlockTxIds[]> {
    return this.blockRun(
      start,
      endExclusive,
      (b) => ({ ...parseHeader(b), txIDs: ((b.txids ?? []) as unknown[]).map(String) }),
      'blockTxIds',
    );
  }

  async getScanBlocks(start: number, endExclusive: number, opts: { owner?: string | null } = {}): Promise<ScanBlock[]> {
    return this.blockRun(start, endExclusive, parseScanBlock, 'blockRange', opts.owner ?? undefined);
  }

  /**
   * Blocks [start, endExclusive) in requests of BLOCK_RANGE_LIMIT, as a run from `start` (shorter
   * when the node has fewer); pruned on the parse worker when `kind` is given.
   */
  private async blockRun<B extends { number: number }>(
    start: number,
    endExclusive: number,
    map: (b: Json) => B,
    kind?: PruneKind,
    arg?: string,
  ): Promise<B[]> {
    const out: B[] = [];
    for (let from = start; from < endExclusive; from += BLOCK_RANGE_LIMIT) {
      const to = Math.min(endExclusive, from + BLOCK_RANGE_LIMIT);
      const parse = kind ? { parse: (body: Uint8Array) => this.parser.parse(kind, body, arg) } : undefined;
      const answer = await this.http.post<Json>('/wallet/getblockbylimitnext', { startNum: from, endNum: to }, parse);
      if (!appendRun(out, ((answer.block ?? []) as Json[]).map(map), from, to)) break;
    }
    return out;
  }

  async getTransactionInfosByBlock(num: number): Promise<TxInfo[]> {
    const answer = await this.http.post<unknown>('/wallet/gettransactioninfobyblocknum', { num });
    return Array.isArray(answer) ? answer.map(parseInfo) : [];
  }

  async getScanTransferLogs(num: number): Promise<ScanInfos> {
    return parseScanInfos(
      await this.http.post<Json>(
        '/wallet/gettransactioninfobyblocknum',
        { num },
        { parse: (b) => this.parser.parse('transferLogs', b) },
      ),
    );
  }

  async getTransaction(txid: string, opts: { solid?: boolean } = {}): Promise<ChainTx | null> {
    const path = opts.solid ? '/walletsolidity/gettransactionbyid' : '/wallet/gettransactionbyid';
    const tx = await this.http.post<Json>(path, { value: txid });
    return isEmptyAnswer(tx) ? null : parseTx(tx);
  }

  async getTransactionInfo(txid: string, opts: { solid?: boolean } = {}): Promise<TxInfo | null> {
    const path = opts.solid ? '/walletsolidity/gettransactioninfobyid' : '/wallet/gettransactioninfobyid';
    const info = await this.http.post<Json>(path, { value: txid });
    return isEmptyAnswer(info) ? null : parseInfo(info);
  }

  async getAccount(address: string): Promise<AccountState> {
    const a = await this.http.post<Json>('/wallet/getaccount', { address: toHexAddress(address), visible: false });
    return parseAccount(address, a);
  }

  async getAccountResources(address: string): Promise<AccountResources> {
    return parseResources(
      await this.http.post<Json>('/wallet/getaccountresource', { address: toHexAddress(address), visible: false }),
    );
  }

  async getTrc20Balance(contract: string, holder: string): Promise<bigint> {
    const answer = await this.constantCall(contract, holder, 'balanceOf(address)', addressWord(holder));
    const word = answer.constant_result?.[0];
    return typeof word === 'string' && word !== '' ? BigInt(`0x${word}`) : 0n;
  }

  async estimateTrc20TransferEnergy(contract: string, from: string, to: string, amount: bigint): Promise<bigint> {
    const body = this.callBody(contract, from, 'transfer(address,uint256)', addressWord(to) + uintWord(amount));
    let answer: Json | null = null;
    try {
      answer = await this.http.post<Json>('/wallet/estimateenergy', body);
    } catch (e) {
      // Nodes without vm.estimateEnergy refuse the endpoint; the constant call gives the same figure.
      if (!(e instanceof TronNodeError) || e.transient) throw e;
    }
    if (answer && answer.result?.result === true && answer.energy_required !== undefined)
      return BigInt(answer.energy_required);
    if (answer?.result?.code && !/estimate/i.test(hexMessage(answer.result.message))) {
      throw new TronNodeError(`energy estimate failed: ${answer.result.code} ${hexMessage(answer.result.message)}`, {
        path: '/wallet/estimateenergy',
        transient: false,
      });
    }
    const constant = await this.constantCall(
      contract,
      from,
      'transfer(address,uint256)',
      addressWord(to) + uintWord(amount),
    );
    return BigInt(constant.energy_used ?? 0);
  }

  async buildTrxTransfer(p: { from: string; to: string; amount: bigint } & BuildOptions): Promise<TronTransactionJson> {
    const blockHeader = await this.refBlock(p);
    const { tw } = await this.offline();
    const tx = await tw.transactionBuilder.sendTrx(p.to, safeNumber(p.amount, 'amount'), p.from, {
      blockHeader,
    } as any);
    return tx as unknown as TronTransactionJson;
  }

  async buildTrc20Transfer(
    p: { contract: string; from: string; to: string; amount: bigint; feeLimit: bigint } & BuildOptions,
  ): Promise<TronTransactionJson> {
    const blockHeader = await this.refBlock(p);
    const { tw } = await this.offline();
    const { transaction } = await tw.transactionBuilder.triggerSmartContract(
      p.contract,
      'transfer(address,uint256)',
      { feeLimit: safeNumber(p.feeLimit, 'feeLimit'), txLocal: true, blockHeader } as any,
      [
        { type: 'address', value: p.to },
        { type: 'uint256', value: p.amount.toString() },
      ],
      p.from,
    );
    const call = decodeTransferCall(String(transaction.raw_data.contract[0]?.parameter.value.data ?? ''));
    if (!call || call.to !== toHexAddress(p.to) || call.amount !== p.amount)
      throw new Error('built TRC20 transfer does not match the request');
    return transaction as unknown as TronTransactionJson;
  }

  async buildFreezeBalanceV2(
    p: { owner: string; amount: bigint; resource: Resource } & BuildOptions,
  ): Promise<TronTransactionJson> {
    const blockHeader = await this.refBlock(p);
    const { tw } = await this.offline();
    const tx = await tw.transactionBuilder.freezeBalanceV2(safeNumber(p.amount, 'amount'), p.resource, p.owner, {
      blockHeader,
    } as any);
    return tx as unknown as TronTransactionJson;
  }

  async buildDelegateResource(
    p: { owner: string; receiver: string; amount: bigint; resource: Resource; lock?: boolean } & BuildOptions,
  ): Promise<TronTransactionJson> {
    const blockHeader = await this.refBlock(p);
    const { tw } = await this.offline();
    const tx = await tw.transactionBuilder.delegateResource(
      safeNumber(p.amount, 'amount'),
      p.receiver,
      p.resource,
      p.owner,
      p.lock ?? false,
      undefined,
      {
        blockHeader,
      } as any,
    );
    return tx as unknown as TronTransactionJson;
  }

  async buildUnDelegateResource(
    p: { owner: string; receiver: string; amount: bigint; resource: Resource } & BuildOptions,
  ): Promise<TronTransactionJson> {
    const blockHeader = await this.refBlock(p);
    const { tw } = await this.offline();
    const tx = await tw.transactionBuilder.undelegateResource(
      safeNumber(p.amount, 'amount'),
      p.receiver,
      p.resource,
      p.owner,
      { blockHeader } as any,
    );
    return tx as unknown as TronTransactionJson;
  }

  async sign(tx: TronTransactionJson, privateKeyHex: string): Promise<TronTransactionJson> {
    // What we sign must be what the bytes say: the JSON, raw_data_hex and txID have to agree.
    if (txIdOf(tx.raw_data_hex) !== tx.txID.toLowerCase()) throw new Error('txID is not sha256(raw_data)');
    const { tw, encodeRawData } = await this.offline();
    if (encodeRawData(tx) !== tx.raw_data_hex.toLowerCase()) throw new Error('raw_data does not match raw_data_hex');
    const copy = structuredClone(tx);
    const signed = await tw.trx.sign(copy as any, privateKeyHex.replace(/^0x/, ''));
    return signed as unknown as TronTransactionJson;
  }

  async broadcast(tx: TronTransactionJson): Promise<BroadcastResult> {
    const answer = await this.http.post<Json>('/wallet/broadcasttransaction', tx, {
      isTransientAnswer: (a) => RETRYABLE_BROADCAST_CODES.has(a?.code),
    });
    const txid = String(answer.txid ?? tx.txID);
    if (answer.result === true) return { ok: true, txid, duplicate: false };
    const code = (typeof answer.code === 'string' ? answer.code : 'OTHER_ERROR') as BroadcastCode;
    // The node already holds these exact bytes (same txID): the broadcast has happened.
    if (code === 'DUP_TRANSACTION_ERROR') return { ok: true, txid: tx.txID, duplicate: true };
    return {
      ok: false,
      txid,
      code,
      message: hexMessage(answer.message),
      retryable: RETRYABLE_BROADCAST_CODES.has(code),
    };
  }

  private callBody(contract: string, owner: string, selector: string, parameter: string): Json {
    return {
      owner_address: toHexAddress(owner),
      contract_address: toHexAddress(contract),
      function_selector: selector,
      parameter,
      visible: false,
    };
  }

  private async constantCall(contract: string, owner: string, selector: string, parameter: string): Promise<Json> {
    const answer = await this.http.post<Json>(
      '/wallet/triggerconstantcontract',
      this.callBody(contract, owner, selector, parameter),
    );
    if (answer.result?.result !== true) {
      throw new TronNodeError(
        `constant call ${selector} failed: ${answer.result?.code ?? ''} ${hexMessage(answer.result?.message)}`,
        {
          path: '/wallet/triggerconstantcontract',
          transient: false,
        },
      );
    }
    return answer;
  }

  /** Reference block for TAPOS, as tronweb's own builder takes it, with our expiration. */
  private async refBlock(opts: BuildOptions): Promise<RefBlock> {
    const expirationMs = opts.expirationMs ?? DEFAULT_EXPIRATION_MS;
    if (expirationMs <= 0 || expirationMs > MAX_EXPIRATION_MS)
      throw new RangeError('expirationMs must be in (0, 24 h]');
    const block = await this.http.post<Json>('/wallet/getblock', { detail: false });
    const h = parseHeader(block);
    if (!h.id) throw new TronNodeError('node returned no head block', { path: '/wallet/getblock', transient: true });
    return {
      ref_block_bytes: h.number.toString(16).slice(-4).padStart(4, '0'),
      ref_block_hash: h.id.slice(16, 32),
      expiration: h.timestamp + expirationMs,
      timestamp: h.timestamp,
    };
  }
}

export function createTronClient(opts: TronClientOptions): TronClient {
  return new TronwebTronClient(opts);
}
