/**
 * What the chain watcher, sweeper and payout worker ask of a TRON node. One implementation
 * (tronweb-client.ts) serves TronGrid, an own full node, Nile and the devnet alike. Addresses are
 * base58 (`T…`), money is bigint in base units (sun, token units), times are ms since epoch.
 */
import type { BroadcastCode } from './errors.js';
import type { EventLog } from './trc20.js';
import type { TronTransactionJson } from './tx-codec.js';

export type { TronTransactionJson } from './tx-codec.js';

export interface ChainBlockHeader {
  number: number;
  /** blockID: 8-byte number + bytes 8..32 of sha256(header raw data), hex. */
  id: string;
  parentHash: string;
  timestamp: number;
  /** Producer, base58. */
  witness: string;
}

export interface ChainTx {
  txID: string;
  /** e.g. TransferContract, TriggerSmartContract, DelegateResourceContract. */
  contractType: string;
  /** SUCCESS, REVERT, OUT_OF_ENERGY… (absent on pending/unexecuted transactions). */
  contractRet?: string;
  owner: string | null;
  /** TransferContract / resource contracts: the receiver, base58. */
  to?: string;
  /** The same receiver as `41…` hex, lower case ('' when malformed): cheap to compare. */
  toHex?: string;
  /** TransferContract: sun. */
  amount?: bigint;
  /** TriggerSmartContract: the called contract, base58, and calldata hex. */
  contractAddress?: string;
  data?: string;
  feeLimit?: bigint;
  expiration: number;
  raw: TronTransactionJson;
}

export interface ChainBlock extends ChainBlockHeader {
  transactions: ChainTx[];
}

/** A native TRX transfer whose transaction says `contractRet: SUCCESS`. */
export interface ScanTransfer {
  txID: string;
  /** Receiver as `41…` hex, lower case ('' when malformed). */
  toHex: string;
  /** Sender as `41…` hex, lower case ('' when absent). */
  ownerHex: string;
  /** sun */
  amount: bigint;
}

/** A token `Transfer(from, to, value)` log in a transaction whose receipt says SUCCESS. */
export interface ScanTransferLog {
  txID: string;
  /** The block the info says it is from (compared with the block scanned). */
  blockNumber: number;
  /** Position of the log inside its transaction. */
  index: number;
  /** The emitting contract, as the node printed it (hex, usually without `41`). */
  address: string;
  /** topics[1] and topics[2]: 32-byte words holding the sender and the receiver. */
  from: string;
  to: string;
  /** The amount word(s), hex. */
  data: string;
}

/** What the chain watcher reads of a block (a fraction of it: see getScanBlocks). */
export interface ScanBlock extends ChainBlockHeader {
  /** The block's successful native TRX transfers. */
  transfers: ScanTransfer[];
  /**
   * Ids of its successful transactions that ran the VM (TriggerSmartContract, CreateSmartContract):
   * their infos may hold token transfers.
   */
  calls: string[];
  /**
   * Ids of its TRX transfers and VM calls whose result (`ret[0].contractRet`) the node left out:
   * such an answer is incomplete, and the watcher asks again rather than skip a possible deposit.
   */
  unsure: string[];
  /**
   * Every transaction of the block whose owner is the account asked for (getScanBlocks `owner`),
   * whatever its type and result; empty when none was asked for.
   */
  acts: ScanAct[];
}

/** A transaction owned by the watched account (the hot wallet): an act of its keys. */
export interface ScanAct {
  txID: string;
  /** The contract type as the node printed it (`TransferContract`, `VoteWitnessContract`…). */
  contractType: string;
  /** `ret[0].contractRet` ('' when the node left it out). */
  result: string;
  /** The receiver or contract called as `41…` hex, lower case; '' when the contract has none. */
  toHex: string;
  /** What the contract moves or commits (call value, amount, frozen or delegated balance); 0 when none. */
  amount: bigint;
  /** A TRC-10 transfer's token id; '' otherwise. */
  tokenId: string;
}

/** A block's header and the ids of all its transactions. */
export interface BlockTxIds extends ChainBlockHeader {
  txIDs: string[];
}

/** What the watcher reads of a block's transaction infos. */
export interface ScanInfos {
  /** Ids of the transactions the node answered an info for. */
  ids: string[];
  logs: ScanTransferLog[];
  /** Ids of infos with Transfer logs whose receipt states no result (asked again when the block says SUCCESS). */
  unsure: string[];
}

export interface ChainLog extends EventLog {
  /** Position of the log inside its transaction (deposits are keyed by tx hash + log index). */
  index: number;
}

export interface TxInfo {
  txID: string;
  blockNumber: number;
  blockTimestamp: number;
  /** Total TRX burned (sun). */
  fee: bigint;
  /**
   * SUCCESS only when the receipt says SUCCESS (a smart-contract call that ran); FAILED for any
   * explicit other answer; UNKNOWN when the info says nothing (plain TRX transfers: their outcome
   * is the transaction's `contractRet`). A missing answer is never success.
   */
  result: 'SUCCESS' | 'FAILED' | 'UNKNOWN';
  /** Receipt result: SUCCESS, REVERT, OUT_OF_ENERGY…; DEFAULT when absent (the VM did not run). */
  receiptResult: string;
  /** Decoded `resMessage`. */
  message?: string;
  contractAddress?: string;
  energyUsage: bigint;
  energyFee: bigint;
  energyUsageTotal: bigint;
  netUsage: bigint;
  netFee: bigint;
  logs: ChainLog[];
}

export type Resource = 'BANDWIDTH' | 'ENERGY';

export interface AccountState {
  address: string;
  /** False for an address never activated (java-tron answers `{}`). */
  exists: boolean;
  balance: bigint;
  /** Own stake (FreezeBalanceV2) not delegated away, per resource. */
  frozenForEnergy: bigint;
  frozenForBandwidth: bigint;
  delegatedOutEnergy: bigint;
  delegatedOutBandwidth: bigint;
  /** Stake others delegated to this account. */
  acquiredEnergy: bigint;
  acquiredBandwidth: bigint;
}

export interface AccountResources {
  freeNetLimit: bigint;
  freeNetUsed: bigint;
  netLimit: bigint;
  netUsed: bigint;
  energyLimit: bigint;
  energyUsed: bigint;
}

export interface BuildOptions {
  /** How long after the reference block the transaction stays valid; default 60 s, at most 24 h. */
  expirationMs?: number;
}

/**
 * `ok` means the node has the transaction in its pool: accepted now, or already (`duplicate`:
 * DUP_TRANSACTION_ERROR, e.g. a retry after an answer was lost, or a re-broadcast after a crash).
 * Either way the caller polls the transaction info; it must never treat a duplicate as a failure.
 */
export type BroadcastResult =
  | { ok: true; txid: string; duplicate: boolean }
  | { ok: false; txid: string; code: BroadcastCode; message: string; retryable: boolean };

export interface TronClient {
  getHeadBlock(): Promise<ChainBlockHeader>;
  /** Latest irreversible block (`/walletsolidity/getnowblock`). */
  getSolidBlock(): Promise<ChainBlockHeader>;
  /** null when the node has no block at that height yet. */
  getBlock(num: number): Promise<ChainBlock | null>;
  /**
   * The id of the block at `num` without reading its transactions (block 0, the genesis block,
   * names the chain); `solid` asks the solidity API, which answers only blocks at or below its
   * solid height. null when the node has no such block.
   */
  getBlockId(num: number, opts?: { solid?: boolean }): Promise<string | null>;
  /** Blocks [start, endExclusive) in order, fetched 100 at a time; stops at the first missing one. */
  getBlocks(start: number, endExclusive: number): Promise<ChainBlock[]>;
  /**
   * The same blocks reduced to what scanning reads (header, successful TRX transfers, successful
   * contract calls), parsed off the event loop: the chain watcher's read.
   */
  getScanBlocks(start: number, endExclusive: number, opts?: { owner?: string | null }): Promise<ScanBlock[]>;
  /** Blocks [start, endExclusive) as headers and transaction ids, parsed off the event loop; a run from start (shorter when the node has fewer). */
  getBlockTxIds(start: number, endExclusive: number): Promise<BlockTxIds[]>;
  getTransactionInfosByBlock(num: number): Promise<TxInfo[]>;
  /** The token Transfer logs of a block's successful transactions, parsed off the event loop: the watcher's read. */
  getScanTransferLogs(num: number): Promise<ScanInfos>;
  /** Releases what the client holds (its parse worker) for good; optional for test doubles. */
  close?(): Promise<void>;
  /** null when unknown. `solid` asks the solidity API (only irreversible transactions). */
  getTransaction(txid: string, opts?: { solid?: boolean }): Promise<ChainTx | null>;
  /** null until the transaction is in a block (or when unknown). */
  getTransactionInfo(txid: string, opts?: { solid?: boolean }): Promise<TxInfo | null>;
  getAccount(address: string): Promise<AccountState>;
  getAccountResources(address: string): Promise<AccountResources>;
  getTrc20Balance(contract: string, holder: string): Promise<bigint>;
  /** Energy a `transfer(to, amount)` from `from` would use now. */
  estimateTrc20TransferEnergy(contract: string, from: string, to: string, amount: bigint): Promise<bigint>;
  buildTrxTransfer(p: { from: string; to: string; amount: bigint } & BuildOptions): Promise<TronTransactionJson>;
  buildTrc20Transfer(
    p: { contract: string; from: string; to: string; amount: bigint; feeLimit: bigint } & BuildOptions,
  ): Promise<TronTransactionJson>;
  buildFreezeBalanceV2(
    p: { owner: string; amount: bigint; resource: Resource } & BuildOptions,
  ): Promise<TronTransactionJson>;
  buildDelegateResource(
    p: { owner: string; receiver: string; amount: bigint; resource: Resource; lock?: boolean } & BuildOptions,
  ): Promise<TronTransactionJson>;
  buildUnDelegateResource(
    p: { owner: string; receiver: string; amount: bigint; resource: Resource } & BuildOptions,
  ): Promise<TronTransactionJson>;
  /** Offline: checks txID = sha256(raw_data) and that the key owns the transaction. */
  sign(tx: TronTransactionJson, privateKeyHex: string): Promise<TronTransactionJson>;
  /** Never throws for a refusal: SERVER_BUSY is retried with backoff, then returned like any other code. */
  broadcast(tx: TronTransactionJson): Promise<BroadcastResult>;
}
