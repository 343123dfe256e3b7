/**
 * The chain watcher (docs/adr/0024-watcher-finality-rules.md): scans blocks in order from the stored cursor (up to 100 per
 * request while behind, one at a time at the head), records the transfers into deposit addresses
 * as deposits and moves the cursor in the same transaction. Every network call happens before the
 * write transaction; a node error, `{"Error"}` answer or timeout throws out of the tick, which the
 * worker host retries with a backoff, and nothing was written. A parent-hash mismatch rolls back to
 * the common ancestor (deposit-progress.ts settles the consequences) and the scan continues there;
 * a node that replaced a block at or below the final height stops the watcher instead, until the
 * operator resumes it (watcher-stop.ts).
 */
import { performance } from 'node:perf_hooks';
import pLimit from 'p-limit';
import type { ChainBlockHeader, ScanBlock, ScanInfos } from '../chain/client.js';
import { findUnattributedAddresses } from '../addresses/gaps.js';
import { findDepositAddresses, hotWalletAddress } from '../addresses/store.js';
import { toHexAddress } from '../chain/address.js';
import { writeTx } from '../db/database.js';
import { recordTransfer } from '../deposits/service.js';
import { dropUnattributedAbove, recordUnattributedDeposit } from '../deposits/unattributed.js';
import type { Services } from '../services.js';
import {
  base58OrNull,
  matchBlock,
  needsInfos,
  receiversOf,
  TokenSet,
  type FoundAddresses,
  type MatchedTransfer,
  type WatchedAddress,
} from './chain-match.js';
import { advanceDeposits, FINAL_PER_COMMIT, orphanDropped } from './deposit-progress.js';
import type { Worker } from '../runtime/worker.js';
import type { WorkerLease } from '../runtime/lease.js';
import {
  dropScannedAbove,
  lowestScanned,
  pruneScanned,
  readCursor,
  scannedBlock,
  scannedFrom,
  storeScanned,
  writeCursor,
  type Cursor,
} from './store.js';
import {
  clearResumedStop,
  finalBlocksContradicted,
  finalityContradiction,
  readWatcherStop,
  stopWatcher,
} from './stop.js';
import type { ScannedBlocksTable } from '../db/tables/watcher.js';

export const WATCHER_NAME = 'chain-watcher';
/** Mainnet's block interval, used to estimate where a first scan starts. */
const BLOCK_MS = 3_000;

export interface WatcherOptions {
  /** Pause at the head between looks for a new block (default 1 s). */
  intervalMs?: number;
  /** Blocks per range request while behind (java-tron's limit is 100). */
  batch?: number;
  /** Transaction-info requests in flight at once. */
  infoConcurrency?: number;
  /** Ranges fetched ahead while behind (default 2): the node sends one while another is parsed. */
  prefetchDepth?: number;
  /** Deposits made final (credited) per write transaction at most (default FINAL_PER_COMMIT). */
  finalPerCommit?: number;
}

interface Fetched {
  blocks: ScanBlock[];
  /** The infos of the blocks with contract calls; their logs are built only when read. */
  infos: Map<number, ScanInfos>;
  /**
   * The solid height known before these blocks were fetched. Below it the node could only send
   * the blocks no fork can replace; above it they may be a fork's, however high the solid height
   * is when they are committed (a prefetched range may wait through a node outage).
   */
  solid: number;
  /** The head known then: confirmations count only blocks seen on top of these (same reason). */
  head: number;
}

/** The longest run of blocks from the first that link parent to child. */
function contiguous(blocks: ScanBlock[]): ScanBlock[] {
  let n = 1;
  while (
    n < blocks.length &&
    blocks[n]?.parentHash === blocks[n - 1]?.id &&
    blocks[n]?.number === (blocks[n - 1]?.number ?? 0) + 1
  )
    n++;
  return blocks.slice(0, n);
}

/** Blocks behind the head from which catch-up progress is logged. */
const CATCH_UP_REPORT_BEHIND = 200;

export class ChainWatcher implements Worker {
  readonly name = WATCHER_NAME;
  readonly intervalMs: number;
  private readonly batch: number;
  private readonly infoConcurrency: number;
  private readonly tokens: TokenSet;
  private readonly prefetchDepth: number;
  private readonly finalPerCommit: number;
  /** Consecutive ranges being fetched ahead of the cursor, oldest first. */
  private prefetched: { from: number; to: number; promise: Promise<Fetched> }[] = [];
  private reportedAt = 0;
  private reportedBlock = 0;

  constructor(
    private readonly s: Services,
    private readonly lease: WorkerLease | null,
    opts: WatcherOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 1_000;
    this.batch = Math.max(1, Math.min(100, opts.batch ?? 100));
    this.infoConcurrency = opts.infoConcurrency ?? 16;
    this.prefetchDepth = Math.max(1, opts.prefetchDepth ?? 2);
    this.finalPerCommit = Math.max(1, opts.finalPerCommit ?? FINAL_PER_COMMIT);
    this.tokens = new TokenSet(s.catalog);
  }

  /**
   * The deposit addresses among the receivers of these blocks, looked up by the unique index on
   * the address (each distinct receiver once), and the hot wallet's address.
   */
  private async depositAddressesIn(blocks: ScanBlock[], infos: Map<number, ScanInfos>): Promise<FoundAddresses> {
    const seen = new Set<string>();
    const hexByAddress = new Map<string, string>();
    for (const b of blocks) {
      for (const hex of receiversOf(b, infos.get(b.number)?.logs ?? null, this.tokens)) {
        if (seen.has(hex)) continue;
        seen.add(hex);
        // A malformed receiver is no deposit address.
        const address = base58OrNull(hex);
        if (address !== null) hexByAddress.set(address, hex);
      }
    }
    const byHex = new Map<string, WatchedAddress>();
    for (const r of await findDepositAddresses(this.s.db, [...hexByAddress.keys()])) {
      byHex.set(hexByAddress.get(r.address) as string, {
        address: r.address,
        derivationIndex: r.derivation_index,
        merchantId: r.merchant_id,
        externalUserId: r.external_user_id,
      });
    }
    // The addresses a restore skipped stay watched: their payments are recorded for the operator.
    for (const r of await findUnattributedAddresses(this.s.db, [...hexByAddress.keys()])) {
      byHex.set(hexByAddress.get(r.address) as string, {
        address: r.address,
        derivationIndex: r.derivation_index,
        merchantId: null,
        externalUserId: null,
      });
    }
    const hot = await hotWalletAddress(this.s.db);
    return { byHex, hotHex: hot === null ? null : toHexAddress(hot) };
  }

  async tick(signal?: AbortSignal): Promise<boolean> {
    // The node contradicted finality: nothing moves until the operator resumes (watcher-stop.ts).
    const stop = await readWatcherStop(this.s.db);
    if (stop && stop.resumed_at === null) return false;
    const more = await this.scan(signal, stop !== undefined);
    // Resumed: this tick followed the node's chain, and the stop goes.
    if (stop) await writeTx(this.s.db, (trx) => clearResumedStop(trx, stop.stopped_at));
    return more;
  }

  /** One step of the scan; `followNode`: the operator resumed after a stop, the node's chain is taken even below the final height. */
  private async scan(signal: AbortSignal | undefined, followNode: boolean): Promise<boolean> {
    const [head, solid] = await Promise.all([this.s.chain.getHeadBlock(), this.s.chain.getSolidBlock()]);
    if (!head.id || head.number <= 0) throw new Error('node answered no head block');
    const stored = await readCursor(this.s.db);
    const other = await this.checkSolid(head, solid);
    // The node's solid block is another than the one scanned at its height: a solidity backend
    // that lags or lies (nothing becomes final until they agree), unless the node's blocks replace
    // ones at or below the final height: then the node contradicts finality.
    const contradiction = other && stored ? await finalBlocksContradicted(this.s, stored) : null;
    if (contradiction && stored) {
      // Resumed after a stop: the node's chain is taken, whatever it replaced.
      if (followNode) await this.rollback(stored, head, solid, true);
      else await stopWatcher(this.s, this.lease, stored, contradiction);
      return followNode;
    }
    sameSolid(solid, other?.hash);
    const cursor = stored ?? (await this.start(head));
    const next = cursor.next_block;
    if (next > head.number) {
      // At the head, a fork can replace blocks without the height growing: compare the hash.
      const ours = await scannedBlock(this.s.db, head.number);
      if (ours && ours.hash !== head.id) {
        await this.rollback(cursor, head, solid, followNode);
        return true;
      }
      // The solid block is at or below the head, all scanned: checked against the stored one.
      // More deposits left to make final than one commit takes: the next tick goes on at once.
      if (head.number !== cursor.head_number || solid.number !== cursor.solid_number)
        return this.commit(cursor, { number: head.number, solid: solid.number, checked: true }, [], []);
      return false;
    }
    const fetched =
      (await this.takePrefetch(next)) ??
      (await this.fetchRange(next, Math.min(head.number + 1, next + this.batch), solid.number, head.number));
    if (fetched.blocks.length === 0 || fetched.blocks[0]?.number !== next || signal?.aborted) return false;
    const parent = await scannedBlock(this.s.db, next - 1);
    if (parent && fetched.blocks[0].parentHash !== parent.hash) {
      await this.rollback(cursor, head, solid, followNode);
      return true;
    }
    const blocks = contiguous(fetched.blocks);
    // The solid height may be among the blocks just fetched (the stored ones were checked above).
    sameSolid(solid, blocks.find((b) => b.number === solid.number)?.id);
    const last = blocks[blocks.length - 1] as ScanBlock;
    // While behind, the next ranges are fetched while this one is matched and committed.
    if (last.number < head.number) this.fillPrefetch(last.number + 1, head.number, solid.number);
    // After the fetch: any address a payment in these blocks was sent to was committed before it.
    const watched = await this.depositAddressesIn(blocks, fetched.infos);
    const found = blocks.flatMap((b) => matchBlock(b, fetched.infos.get(b.number)?.logs ?? null, watched, this.tokens));
    // Final only up to what was solid when these blocks were fetched, confirmed only by the blocks
    // seen on top of them then: the next range (or the head's hash) shows that the node's chain
    // still holds them, and then the heights above them count. And final only once the scan has
    // reached the solid block, which was then checked to be the block scanned at its height
    // (checkSolid, sameSolid): while a catch-up is below it, the solid host may be on another
    // chain than the blocks scanned, so nothing more becomes final until the scan gets there.
    const checked = solid.number <= last.number;
    const more = await this.commit(
      cursor,
      { number: Math.min(head.number, fetched.head), solid: Math.min(solid.number, fetched.solid), checked },
      blocks,
      found,
    );
    this.reportCatchUp(last.number, head.number);
    return last.number < head.number || more;
  }

  /**
   * Deposits become final up to the solid block's height, so that block must be on the chain that
   * was scanned: /walletsolidity may be another host, or another backend behind a load balancer,
   * than the one serving the blocks. A solid block above the head, or one whose id differs from
   * the block scanned at its height, means two chains: nothing becomes final until they agree
   * (the tick fails, is logged and tried again). Checked against the block scanned at that
   * height, stored or in the range just fetched. A solid block above every block scanned (a
   * catch-up) cannot be checked yet: nothing more becomes final until the scan reaches it.
   * Returns the block scanned at the solid height when the node's solid block is another (the
   * caller tells a lag from a node contradicting finality), else null.
   */
  private async checkSolid(head: ChainBlockHeader, solid: ChainBlockHeader): Promise<ScannedBlocksTable | null> {
    if (solid.number > head.number)
      throw new Error(`node answered solid block ${solid.number} above its head ${head.number}; asking again`);
    const scanned = await scannedBlock(this.s.db, solid.number);
    return scanned && scanned.hash !== solid.id ? scanned : null;
  }

  /** While far behind (a first start, an outage), the operator sees the catch-up move: every 10 s. */
  private reportCatchUp(scanned: number, head: number): void {
    const now = performance.now();
    if (head - scanned < CATCH_UP_REPORT_BEHIND || now - this.reportedAt < 10_000) return;
    const rate = this.reportedAt > 0 ? ((scanned - this.reportedBlock) * 1000) / (now - this.reportedAt) : null;
    this.s.logger.info(
      { scanned, head, behind: head - scanned, blocks_per_s: rate === null ? null : Math.round(rate) },
      'chain watcher catching up',
    );
    this.reportedAt = now;
    this.reportedBlock = scanned;
  }

  /** Blocks [from, to) and the Transfer logs of those that hold a successful contract call or creation. */
  private async fetchRange(from: number, to: number, solid: number, head: number): Promise<Fetched> {
    const blocks = await this.s.chain.getScanBlocks(from, to);
    // A field the node left out is a failed answer, never a transfer to skip (it may be a deposit).
    const unsure = blocks.find((b) => b.unsure.length > 0);
    if (unsure)
      throw new Error(
        `node answered block ${unsure.number} with transaction ${unsure.unsure[0] || '(no txID)'} incomplete (its result, receiver, amount or id left out); asking again`,
      );
    const infosOf = new Map<number, ScanInfos>();
    await pLimit(this.infoConcurrency).map(blocks.filter(needsInfos), async (b) => {
      const infos = await this.s.chain.getScanTransferLogs(b.number);
      // A node that leaves a call's info out (lagging behind a load balancer, history turned off)
      // would make its token transfers look absent: the range is asked for again, never skipped.
      const answered = new Set(infos.ids);
      const missing = b.calls.find((id) => !answered.has(id));
      if (missing !== undefined)
        throw new Error(`node answered the infos of block ${b.number} without transaction ${missing}; asking again`);
      const elsewhere = infos.logs.find((l) => l.blockNumber !== b.number);
      if (elsewhere)
        throw new Error(
          `node answered the infos of block ${b.number} with a log of transaction ${elsewhere.txID} from block ${elsewhere.blockNumber || '(none)'}; asking again`,
        );
      const stateless = infos.unsure.find((id) => b.calls.includes(id));
      if (stateless !== undefined)
        throw new Error(
          `node answered the info of transaction ${stateless} in block ${b.number} without its receipt's result; asking again`,
        );
      infosOf.set(b.number, infos);
    });
    return { blocks, infos: infosOf, solid, head };
  }

  /** Keeps up to prefetchDepth consecutive ranges from `from` (up to `head`) in flight. */
  private fillPrefetch(from: number, head: number, solid: number): void {
    if (this.prefetched[0] && this.prefetched[0].from !== from) this.prefetched = [];
    let next = this.prefetched.at(-1)?.to ?? from;
    while (this.prefetched.length < this.prefetchDepth && next <= head) {
      const to = Math.min(head + 1, next + this.batch);
      const promise = this.fetchRange(next, to, solid, head);
      // A failed prefetch is dropped: the next tick fetches again (and meets the error itself).
      promise.catch(() => undefined);
      this.prefetched.push({ from: next, to, promise });
      next = to;
    }
  }

  private async takePrefetch(from: number): Promise<Fetched | null> {
    const p = this.prefetched.shift();
    if (!p || p.from !== from) {
      this.prefetched = [];
      return null;
    }
    try {
      return await p.promise;
    } catch {
      this.prefetched = []; // the ranges after a failed one start where it should have ended
      return null;
    }
  }

  /** First start: from about when the oldest deposit address was handed out, else the head. */
  private async start(head: ChainBlockHeader): Promise<Cursor> {
    const oldest = await this.s.db
      .selectFrom('deposit_addresses')
      .select((eb) => eb.fn.min('created_at').as('at'))
      .executeTakeFirst();
    let next = head.number;
    if (oldest?.at) {
      const back = Math.ceil(Math.max(0, head.timestamp - Date.parse(oldest.at)) / BLOCK_MS) + 20;
      next = Math.max(1, head.number - back);
    }
    const cursor = {
      next_block: next,
      last_block_time: null,
      head_number: head.number,
      solid_number: 0,
      updated_at: this.s.clock.now().toISOString(),
    };
    await writeTx(this.s.db, (trx) => writeCursor(trx, cursor));
    this.s.logger.info({ next }, 'chain watcher: first scan starts');
    return { id: 1, ...cursor };
  }

  /**
   * One short write transaction: deposits, scanned hashes, cursor, progress, settlement. Deposits
   * count confirmations up to `chain.number` and are final up to `chain.solid` once it is
   * `checked` (else what was final stays); the blocks above it are kept to find a fork by. The
   * cursor records both, so that the next look at the head moves them on as soon as the node's
   * head and solid heights differ from them.
   */
  private async commit(
    cursor: Cursor,
    chain: { number: number; solid: number; checked: boolean },
    blocks: ScanBlock[],
    found: MatchedTransfer[],
  ): Promise<boolean> {
    const last = blocks.at(-1);
    const scannedTo = last ? last.number : cursor.next_block - 1;
    const final = chain.checked ? chain.solid : Math.min(cursor.solid_number, chain.solid);
    const ctx = {
      clock: this.s.clock,
      defaultConfirmations: this.s.config.confirmations,
      head: chain.number,
      finalLimit: this.finalPerCommit,
    };
    return writeTx(this.s.db, async (trx) => {
      if (this.lease) await this.lease.assertHeld(trx);
      const cur = await readCursor(trx);
      // Another scan moved the cursor meanwhile (a stale process): its result stands, ours is dropped.
      if (cur && cur.next_block !== cursor.next_block) return false;
      const touched = new Set<string>();
      for (const f of found) {
        const { watched, block, ...transfer } = f;
        const blockTime = new Date(block.timestamp).toISOString();
        if (watched.merchantId === null) {
          const { txHash, logIndex, asset, amount, decimals, from } = transfer;
          const seen = {
            tx_hash: txHash,
            log_index: logIndex,
            asset,
            amount: amount.toString(),
            decimals,
            from_address: from,
          };
          await recordUnattributedDeposit(trx, {
            ...seen,
            address: watched.address,
            block_number: block.number,
            block_hash: block.id,
            block_time: blockTime,
            detected_at: this.s.clock.now().toISOString(),
          });
          continue;
        }
        const t = await recordTransfer(trx, ctx, {
          ...transfer,
          address: watched.address,
          derivationIndex: watched.derivationIndex,
          merchantId: watched.merchantId,
          externalUserId: watched.externalUserId,
          block: { number: block.number, hash: block.id, time: blockTime },
        });
        for (const id of t?.invoices ?? []) touched.add(id);
      }
      const lastTime = last ? new Date(last.timestamp).toISOString() : cursor.last_block_time;
      const horizon =
        lastTime && cursor.last_block_time && cursor.last_block_time > lastTime ? cursor.last_block_time : lastTime;
      if (last) {
        // Kept for finding forks: the blocks from the node's solid height up (no fork goes below it).
        await storeScanned(
          trx,
          blocks
            .filter((b) => b.number >= chain.solid || b === last)
            .map((b) => ({ number: b.number, hash: b.id, parent_hash: b.parentHash, timestamp: b.timestamp })),
        );
        await pruneScanned(trx, chain.solid, last.number);
      }
      // At most finalPerCommit deposits become final here: the cursor records the height reached.
      const reached = await advanceDeposits(trx, { ...ctx, horizon, solid: final, scannedTo }, touched);
      await writeCursor(trx, {
        next_block: last ? last.number + 1 : cursor.next_block,
        last_block_time: horizon,
        head_number: chain.number,
        solid_number: reached,
        updated_at: this.s.clock.now().toISOString(),
      });
      return reached < final;
    });
  }

  /**
   * The node's chain no longer holds our last block: back to the common ancestor. A block the node
   * replaced at or below the final height stops the watcher instead (watcher-stop.ts), unless the
   * operator resumed after such a stop (`followNode`).
   */
  private async rollback(
    cursor: Cursor,
    head: ChainBlockHeader,
    solid: ChainBlockHeader,
    followNode = false,
  ): Promise<void> {
    const next = cursor.next_block;
    const low = (await lowestScanned(this.s.db)) ?? next - 1;
    const nodeBlocks = await this.s.chain.getScanBlocks(low, next);
    const stored = await scannedFrom(this.s.db, low);
    const contradiction = followNode ? null : finalityContradiction(stored, nodeBlocks, cursor.solid_number);
    if (contradiction) return stopWatcher(this.s, this.lease, cursor, contradiction);
    // No stored block still on the node's chain: the fork goes below everything kept (a first
    // scan that started at the head keeps nothing older), so the safe ancestor is the solid block,
    // which no fork can replace. Scanning again from there records nothing twice.
    // A node that answers no solid block (0) does not send the scan back to genesis.
    let ancestor = solid.number > 0 ? Math.min(low - 1, solid.number) : low - 1;
    let ancestorTime: number | null = ancestor === solid.number ? solid.timestamp : null;
    for (const b of stored) {
      if (nodeBlocks.find((n) => n.number === b.number)?.id === b.hash) {
        ancestor = b.number;
        ancestorTime = b.timestamp;
        break;
      }
    }
    // The scan horizon goes back to the ancestor's time: the replaced blocks' time is no longer
    // the chain's, and an invoice paid in time in one of them must not expire before the rescan
    // finds the payment again in the new blocks. Unknown (no stored ancestor): nothing expires
    // until the next range is scanned.
    const horizon = ancestorTime !== null && ancestorTime > 0 ? new Date(ancestorTime).toISOString() : null;
    this.s.logger.warn(
      { from: next - 1, ancestor },
      'chain watcher: fork detected; rolling back to the common ancestor',
    );
    const ctx = { clock: this.s.clock, defaultConfirmations: this.s.config.confirmations };
    await writeTx(this.s.db, async (trx) => {
      if (this.lease) await this.lease.assertHeld(trx);
      const cur = await readCursor(trx);
      if (!cur || cur.next_block !== next) return;
      const touched = await orphanDropped(trx, ctx, ancestor);
      await dropUnattributedAbove(trx, ancestor);
      await dropScannedAbove(trx, ancestor);
      // As in commit(): a solid block above the ancestor (the rescan has not reached it) makes
      // nothing more final; what was final stays.
      const final = solid.number <= ancestor ? solid.number : Math.min(cur.solid_number, solid.number);
      const reached = await advanceDeposits(
        trx,
        { ...ctx, horizon, head: head.number, solid: final, scannedTo: ancestor, finalLimit: this.finalPerCommit },
        touched,
      );
      await writeCursor(trx, {
        ...cur,
        next_block: ancestor + 1,
        last_block_time: horizon,
        head_number: head.number,
        solid_number: reached,
        updated_at: this.s.clock.now().toISOString(),
      });
    });
  }
}

/** The block scanned at the solid height (its hash, if any was) is the node's solid block. */
function sameSolid(solid: ChainBlockHeader, scannedHash: string | undefined): void {
  if (scannedHash !== undefined && scannedHash !== solid.id) {
    throw new Error(
      `node answered solid block ${solid.number} as ${solid.id}, but ${scannedHash} was scanned at that height: two chains, nothing becomes final until they agree`,
    );
  }
}

export function chainWatcher(s: Services, lease: WorkerLease | null, opts: WatcherOptions = {}): ChainWatcher {
  return new ChainWatcher(s, lease, opts);
}
