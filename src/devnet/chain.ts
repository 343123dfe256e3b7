/**
 * The devnet's chain: blocks, the pending pool, the world state and the solid height. A broadcast
 * is validated (txID, signature, duplicates, TAPOS, expiration, contract, bandwidth) and applied
 * to the live state at once; the next block packs the whole pool. The state after each block above
 * the solid height is kept so a fork can rewind to it.
 */
import { TronWeb } from 'tronweb';
import type { Clock } from '../clock.js';
import {
  bandwidthBytes,
  decodeRawData,
  encodeRawData,
  recoverSigner,
  txIdOf,
  type TronTransactionJson,
} from '../chain/tx-codec.js';
import { sealBlock, type StoredBlock, type StoredTx } from './block.js';
import { buildTransaction, refOf, signTransaction } from './builder.js';
import { applyContract } from './execute.js';
import {
  DEVNET_TOKENS,
  FAUCET_UNITS,
  FUNDED_UNITS,
  faucetKey,
  fundedAccounts,
  witnessKeys,
  type DevnetKey,
} from './keys.js';
import {
  cloneState,
  DEVNET_TRC10_ID,
  emptyState,
  newAccount,
  setTokenBalance,
  SUN_PER_TRX,
  TRC10_PREFIX,
  type WorldState,
} from './state.js';
import { transferCalldata } from '../chain/trc20.js';

export const SLOT_MS = 3_000;
const TAPOS_WINDOW = 65_536;
const MAX_EXPIRATION_AHEAD_MS = 86_400_000;

export type BroadcastAnswer =
  { result: true; code: 'SUCCESS'; txid: string } | { code: string; txid: string; message: string } | { Error: string };

export type ForkMode = 'reinclude' | 'drop';

export interface ForkReport {
  depth: number;
  mode: ForkMode;
  replaced: { number: number; oldId: string; newId: string }[];
  /** Transactions of the orphaned blocks that are in no block any more. */
  dropped: string[];
  reincluded: string[];
}

export interface ChainOptions {
  clock: Clock;
  solidLag: number;
  /**
   * Slot length: block timestamps are multiples of it and at least one slot apart. Mainnet's is
   * 3 s; a devnet producing faster blocks uses its block time, so block times follow wall time.
   */
  slotMs?: number;
  accounts: number;
}

const hexMsg = (m: string): string => Buffer.from(m, 'utf8').toString('hex');
const toHex = (a: unknown): string =>
  typeof a === 'string' ? (a.startsWith('T') ? TronWeb.address.toHex(a) : a).toLowerCase() : '';

export class DevnetChain {
  blocks: StoredBlock[] = [];
  pool: StoredTx[] = [];
  live: WorldState;
  solidNumber = 0;
  forkEpoch = 0;
  /** World state after block n, for n from the solid height to the head. */
  snapshots = new Map<number, WorldState>();
  /** txid → block number */
  readonly index = new Map<string, number>();
  readonly witnesses: DevnetKey[] = witnessKeys();
  readonly faucet: DevnetKey = faucetKey();
  readonly funded: DevnetKey[];
  onBlock: ((b: StoredBlock) => void) | null = null;

  constructor(readonly opts: ChainOptions) {
    this.funded = fundedAccounts(opts.accounts);
    this.live = emptyState();
  }

  /** A fresh chain: genesis state (faucet, funded accounts, token contracts) and block 0. */
  genesis(): this {
    const ts = Math.floor(this.opts.clock.now().getTime() / SLOT_MS) * SLOT_MS;
    const s = this.live;
    const credit = (k: DevnetKey, units: bigint) => {
      const a = newAccount(ts);
      a.balance = units * SUN_PER_TRX;
      s.accounts.set(k.hex, a);
      for (const t of DEVNET_TOKENS) setTokenBalance(s, t.hex, k.hex, units * 10n ** BigInt(t.decimals));
    };
    credit(this.faucet, FAUCET_UNITS);
    setTokenBalance(s, `${TRC10_PREFIX}${DEVNET_TRC10_ID}`, this.faucet.hex, FAUCET_UNITS * SUN_PER_TRX);
    for (const k of this.funded) credit(k, FUNDED_UNITS);
    for (const w of this.witnesses) s.accounts.set(w.hex, newAccount(ts));
    for (const t of DEVNET_TOKENS) s.accounts.set(t.hex, newAccount(ts));
    const witness = this.witnesses[0] as DevnetKey;
    this.blocks = [sealBlock({ number: 0, parentHash: '0'.repeat(64), timestamp: ts, witness, txs: [] })];
    this.snapshots.set(0, cloneState(s));
    return this;
  }

  get head(): StoredBlock {
    return this.blocks[this.blocks.length - 1] as StoredBlock;
  }

  get solid(): StoredBlock {
    return this.blocks[this.solidNumber] as StoredBlock;
  }

  blockByNum(n: number): StoredBlock | undefined {
    return Number.isInteger(n) && n >= 0 ? this.blocks[n] : undefined;
  }

  blockById(id: string): StoredBlock | undefined {
    const n = parseInt(id.slice(0, 16), 16);
    const b = this.blockByNum(n);
    return b && b.id === id.toLowerCase() ? b : undefined;
  }

  /** The stored transaction and its block (undefined block while pending). */
  findTx(txid: string): { stored: StoredTx; block?: StoredBlock } | undefined {
    const id = txid.toLowerCase();
    const n = this.index.get(id);
    if (n !== undefined) {
      const block = this.blocks[n] as StoredBlock;
      const stored = block.txs.find((t) => t.tx.txID === id);
      if (stored) return { stored, block };
    }
    const pending = this.pool.find((t) => t.tx.txID === id);
    return pending ? { stored: pending } : undefined;
  }

  stateAtSolid(): WorldState {
    return this.snapshots.get(this.solidNumber) ?? this.live;
  }

  /** `/wallet/broadcasttransaction`: validate and, when accepted, apply to the live state. */
  broadcast(input: unknown): BroadcastAnswer {
    const tx = input as TronTransactionJson;
    if (!tx || typeof tx !== 'object' || !tx.raw_data?.contract?.[0])
      return { Error: 'class java.lang.NullPointerException : invalid transaction' };
    let rawHex: string;
    try {
      rawHex = encodeRawData(tx);
    } catch (e) {
      return {
        Error: `class org.tron.core.exception.BadItemException : ${e instanceof Error ? e.message : String(e)}`,
      };
    }
    const txid = txIdOf(rawHex);
    const fail = (code: string, message: string): BroadcastAnswer => ({ code, txid, message: hexMsg(message) });
    const raw = decodeRawData(rawHex);
    const contract = raw.contract[0];
    if (!contract) return fail('OTHER_ERROR', 'no contract');
    const value = contract.parameter.value;
    const owner = toHex(value.owner_address);
    const sigs = Array.isArray(tx.signature) ? tx.signature : [];
    if (sigs.length === 0) return fail('SIGERROR', 'Validate signature error: miss sig or contract');
    if (typeof tx.txID === 'string' && tx.txID.toLowerCase() !== txid)
      return fail('SIGERROR', 'Validate signature error: txID is not sha256(raw_data)');
    // The owner's key, or the keys its permissions name (weights summed up to the threshold).
    const permission = owner ? this.live.permissions.get(owner) : undefined;
    let weight = 0;
    for (const sig of sigs) {
      const signer = recoverSigner(txid, sig);
      const w = permission ? permission.keys.find(([k]) => k === signer)?.[1] : signer === owner ? 1 : undefined;
      if (w === undefined) {
        return fail(
          'SIGERROR',
          `Validate signature error: ${sig} is signed by ${signer ?? 'nobody'} but it is not contained of permission.`,
        );
      }
      weight += w;
    }
    if (weight < (permission?.threshold ?? 1))
      return fail('SIGERROR', `Validate signature error: sum weight ${weight} is less than threshold`);
    if (this.index.has(txid) || this.pool.some((t) => t.tx.txID === txid))
      return fail('DUP_TRANSACTION_ERROR', 'Dup transaction.');
    if (!this.taposOk(raw.ref_block_bytes, raw.ref_block_hash)) {
      return fail(
        'TAPOS_ERROR',
        `Tapos check error: ref block ${raw.ref_block_bytes}/${raw.ref_block_hash} is not on this chain`,
      );
    }
    const headTs = this.head.timestamp;
    const expiration = raw.expiration ?? 0;
    if (expiration <= headTs)
      return fail(
        'TRANSACTION_EXPIRATION_ERROR',
        `Transaction expiration, transaction expiration time is ${expiration}, but headBlockTime is ${headTs}`,
      );
    if (expiration > headTs + MAX_EXPIRATION_AHEAD_MS)
      return fail(
        'TRANSACTION_EXPIRATION_ERROR',
        `expiration time must be less than or equal to ${headTs + MAX_EXPIRATION_AHEAD_MS}`,
      );
    const stored: StoredTx = {
      tx: { txID: txid, raw_data: raw, raw_data_hex: rawHex, signature: sigs.map((s) => s.toLowerCase()) },
      info: {},
    };
    const outcome = this.execute(stored);
    if (!outcome.ok) return fail(outcome.code, outcome.message);
    return { result: true, code: 'SUCCESS', txid };
  }

  /** Applies a validated transaction to the live state and queues it for the next block. */
  private execute(stored: StoredTx): { ok: true } | { ok: false; code: string; message: string } {
    const raw = stored.tx.raw_data;
    const contract = raw.contract[0];
    if (!contract) return { ok: false, code: 'OTHER_ERROR', message: 'no contract' };
    const value: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(contract.parameter.value)) value[k] = k.endsWith('_address') ? toHex(v) : v;
    const result = applyContract(this.live, {
      type: contract.type,
      value,
      feeLimit: raw.fee_limit ?? 0,
      bytes: bandwidthBytes(stored.tx.raw_data_hex, stored.tx.signature?.length ?? 0),
      txid: stored.tx.txID,
      now: this.head.timestamp,
    });
    if (!result.ok) return result;
    stored.tx.ret = [{ contractRet: result.contractRet }];
    stored.info = result.info;
    this.pool.push(stored);
    return { ok: true };
  }

  private taposOk(refBytes: string, refHash: string): boolean {
    const low = parseInt(refBytes, 16);
    if (!Number.isInteger(low) || refBytes.length !== 4) return false;
    const head = this.head.number;
    // The one block within the last 65,536 whose number ends in these 16 bits.
    let n = head - ((head - low) & 0xffff);
    if (n < 0 || head - n >= TAPOS_WINDOW) return false;
    n = Math.max(n, 0);
    return this.blocks[n]?.id.slice(16, 32) === refHash.toLowerCase();
  }

  /** Produces `count` blocks; the first packs the whole pool. */
  mine(count = 1): StoredBlock[] {
    const made: StoredBlock[] = [];
    for (let i = 0; i < count; i++) {
      const prev = this.head;
      const slot = this.opts.slotMs ?? SLOT_MS;
      const aligned = Math.floor(this.opts.clock.now().getTime() / slot) * slot;
      const number = prev.number + 1;
      const witness = this.witnesses[(number + this.forkEpoch) % this.witnesses.length] as DevnetKey;
      const block = sealBlock({
        number,
        parentHash: prev.id,
        timestamp: Math.max(prev.timestamp + slot, aligned),
        witness,
        txs: this.pool,
      });
      this.pool = [];
      for (const t of block.txs) this.index.set(t.tx.txID, number);
      this.blocks.push(block);
      this.snapshots.set(number, cloneState(this.live));
      this.solidNumber = Math.max(this.solidNumber, number - this.opts.solidLag);
      for (const n of this.snapshots.keys()) if (n < this.solidNumber) this.snapshots.delete(n);
      made.push(block);
      this.onBlock?.(block);
    }
    return made;
  }

  /**
   * Replaces the last `depth` blocks (all above the solid height) with new ones: new producers,
   * new blockIDs, the same heights. `reinclude` packs the orphaned transactions that still apply
   * into the first new block; `drop` forgets them (as if the other fork never saw them).
   */
  fork(depth: number, mode: ForkMode = 'reinclude'): ForkReport {
    const head = this.head.number;
    if (!Number.isInteger(depth) || depth < 1 || depth > head - this.solidNumber) {
      throw new Error(
        `fork depth must be 1..${head - this.solidNumber} (blocks above the solid height ${this.solidNumber})`,
      );
    }
    const base = head - depth;
    const orphaned = this.blocks.slice(base + 1);
    const orphanTxs = orphaned.flatMap((b) => b.txs);
    const pending = this.pool;
    for (const t of orphanTxs) this.index.delete(t.tx.txID);
    const snapshot = this.snapshots.get(base);
    if (!snapshot) throw new Error(`no state kept for block ${base}`);
    this.live = cloneState(snapshot);
    this.blocks.length = base + 1;
    for (const n of [...this.snapshots.keys()]) if (n > base) this.snapshots.delete(n);
    this.pool = [];
    this.forkEpoch += 1;
    const reincluded: string[] = [];
    const dropped: string[] = [];
    for (const t of mode === 'reinclude' ? orphanTxs : []) {
      if (this.execute({ tx: { ...t.tx, ret: [] }, info: {} }).ok) reincluded.push(t.tx.txID);
      else dropped.push(t.tx.txID);
    }
    if (mode === 'drop') dropped.push(...orphanTxs.map((t) => t.tx.txID));
    for (const t of pending) this.execute({ tx: { ...t.tx, ret: [] }, info: {} });
    const made = this.mine(depth);
    return {
      depth,
      mode,
      replaced: orphaned.map((b, i) => ({ number: b.number, oldId: b.id, newId: made[i]?.id ?? '' })),
      dropped,
      reincluded,
    };
  }

  /**
   * What a real chain never does: replaces the last `depth` blocks, reaching below the solid
   * height, with blocks of the same heights and transactions from other producers (new blockIDs, a
   * consistent parent chain). It shows a gateway a node that contradicts finality. The transactions
   * stay in their blocks, so the state and the solid height stay as they were.
   */
  forkBeyondSolid(depth: number): ForkReport {
    const head = this.head.number;
    const above = head - this.solidNumber;
    if (!Number.isInteger(depth) || depth <= above || depth > head) {
      throw new Error(
        `a fork beyond the solid height replaces ${above + 1}..${head} blocks (more than the ${above} above the solid height ${this.solidNumber}; block 0 stays)`,
      );
    }
    this.forkEpoch += 1;
    const replaced: ForkReport['replaced'] = [];
    for (let n = head - depth + 1; n <= head; n++) {
      const old = this.blocks[n] as StoredBlock;
      const witness = this.witnesses[(n + this.forkEpoch) % this.witnesses.length] as DevnetKey;
      const block = sealBlock({
        number: n,
        parentHash: (this.blocks[n - 1] as StoredBlock).id,
        timestamp: old.timestamp,
        witness,
        txs: old.txs,
      });
      if (old.ownJson) block.ownJson = old.ownJson;
      this.blocks[n] = block;
      replaced.push({ number: n, oldId: old.id, newId: block.id });
    }
    return { depth, mode: 'reinclude', replaced, dropped: [], reincluded: [] };
  }

  /** The token contract of `asset` refuses to pay `address` or to let it pay, from now on (as USDT's blacklist). */
  blacklist(asset: string, address: string): void {
    const token = DEVNET_TOKENS.find((t) => t.asset === asset || t.symbol === asset);
    if (!token) throw new Error(`${asset} is not a devnet token`);
    const key = `${token.hex}|${toHex(address)}`;
    // Every kept state too: the solidity API's calls read the state at the solid height.
    for (const state of [this.live, ...this.snapshots.values()]) state.blacklist.add(key);
  }

  /** Builds, signs and broadcasts a transfer of TRX, a devnet token or the TRC-10 token (`trc10:<id>`) (the control API's fund/pay). */
  transfer(p: { from: DevnetKey; to: string; asset: string; amount: bigint; feeLimit?: bigint }): BroadcastAnswer {
    const to = toHex(p.to);
    const ref = refOf(this.head);
    const token = DEVNET_TOKENS.find((t) => t.asset === p.asset || t.symbol === p.asset);
    let tx: TronTransactionJson;
    if (p.asset.startsWith(TRC10_PREFIX)) {
      tx = buildTransaction(
        'TransferAssetContract',
        {
          owner_address: p.from.hex,
          to_address: to,
          asset_name: Buffer.from(p.asset.slice(TRC10_PREFIX.length), 'utf8').toString('hex'),
          amount: Number(p.amount),
        },
        ref,
      );
    } else if (p.asset === 'TRX_TRON' || p.asset === 'TRX') {
      tx = buildTransaction(
        'TransferContract',
        { owner_address: p.from.hex, to_address: to, amount: Number(p.amount) },
        ref,
      );
    } else if (token) {
      tx = buildTransaction(
        'TriggerSmartContract',
        { owner_address: p.from.hex, contract_address: token.hex, data: transferCalldata(to, p.amount) },
        ref,
        { feeLimit: Number(p.feeLimit ?? 100n * SUN_PER_TRX) },
      );
    } else {
      return { Error: `unknown asset ${p.asset}` };
    }
    return this.broadcast(signTransaction(tx, p.from.privateKey));
  }
}
