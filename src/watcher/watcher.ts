/**
 * The chain watcher (docs/adr/0024-watcher-finality-rules.md): scans blocks in order from the stored cursor (up to 100 per
 * request while behind, one at a time at the head), records the transfers into deposit addresses
 * as deposits and the transfers out of the hot wallet (hot-wallet.ts), and moves the cursor in the
 * same transaction. Every network call happens before the
 * write transaction; a node error, `{"Error"}` answer or timeout throws out of the tick, which the
 * worker host retries with a backoff, and nothing was written. A parent-hash mismatch rolls back to
 * the common ancestor (deposit-progress.ts settles the consequences) and the scan continues there;
 * a node that replaced a block at or below the final height stops the watcher instead, until the
 * operator resumes it (stop.ts). This class orchestrates a tick; the node's ranges are read in
 * block-range.ts, a scanned range is written in range-commit.ts, a fork rolled back in
 * fork-rollback.ts.
 */
import { performance } from 'node:perf_hooks';
import type { ChainBlockHeader, ScanBlock, ScanInfos } from '../chain/client.js';
import { findUnattributedAddresses } from '../restore/derivation-gap.js';
import { findDepositAddresses, hotWalletAddress } from '../addresses/store.js';
import { toHexAddress } from '../chain/address.js';
import { writeTx } from '../db/database.js';
import type { Services } from '../services.js';
import {
  contiguous,
  fetchRange,
  fillPrefetch,
  takePrefetch,
  type PrefetchedRange,
  type RangeSource,
} from './block-range.js';
import {
  base58OrNull,
  matchBlock,
  receiversOf,
  TokenSet,
  type FoundAddresses,
  type WatchedAddress,
} from './chain-match.js';
import { FINAL_PER_COMMIT } from './deposit-progress.js';
import { rollbackFork } from './fork-rollback.js';
import { outgoingOf } from './hot-wallet.js';
import { actsOf } from './hot-wallet-acts.js';
import { readingState } from '../restore/chain-reading.js';
import { commitRange, type CursorWriter } from './range-commit.js';
import type { Worker } from '../runtime/worker.js';
import type { WorkerLease } from '../runtime/lease.js';
import { readCursor, scannedBlock, writeCursor, type Cursor } from './store.js';
import { clearResumedStop, finalBlocksContradicted, readWatcherStop, stopWatcher } from './stop.js';
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

/** Blocks behind the head from which catch-up progress is logged. */
const CATCH_UP_REPORT_BEHIND = 200;

export class ChainWatcher implements Worker {
  readonly name = WATCHER_NAME;
  readonly intervalMs: number;
  private readonly tokens: TokenSet;
  /** The node and how much of it is asked for at once. */
  private readonly source: RangeSource;
  /** What the writes that move the cursor take. */
  private readonly writer: CursorWriter;
  /** Consecutive ranges being fetched ahead of the cursor, oldest first. */
  private readonly prefetched: PrefetchedRange[] = [];
  private reportedAt = 0;
  private reportedBlock = 0;

  constructor(
    private readonly s: Services,
    private readonly lease: WorkerLease | null,
    opts: WatcherOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 1_000;
    this.source = {
      chain: s.chain,
      batch: Math.max(1, Math.min(100, opts.batch ?? 100)),
      infoConcurrency: opts.infoConcurrency ?? 16,
      prefetchDepth: Math.max(1, opts.prefetchDepth ?? 2),
      owner: null,
    };
    this.writer = { s, lease, finalPerCommit: Math.max(1, opts.finalPerCommit ?? FINAL_PER_COMMIT) };
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
    return { byHex, hotHex: this.source.owner };
  }

  async tick(signal?: AbortSignal): Promise<boolean> {
    // The node contradicted finality: nothing moves until the operator resumes (stop.ts).
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
      if (followNode) await rollbackFork(this.writer, stored, head, solid, true);
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
        await rollbackFork(this.writer, cursor, head, solid, followNode);
        return true;
      }
      // The solid block is at or below the head, all scanned: checked against the stored one.
      // More deposits left to make final than one commit takes: the next tick goes on at once.
      if (head.number !== cursor.head_number || solid.number !== cursor.solid_number)
        return commitRange(this.writer, cursor, { number: head.number, solid: solid.number, checked: true }, [], []);
      return false;
    }
    // Every transaction the hot wallet owns is kept from the blocks fetched (its acts).
    const hot = await hotWalletAddress(this.s.db);
    this.source.owner = hot === null ? null : toHexAddress(hot).toLowerCase();
    const fetched =
      (await takePrefetch(this.prefetched, next, this.source.owner)) ??
      (await fetchRange(
        this.source,
        next,
        Math.min(head.number + 1, next + this.source.batch),
        solid.number,
        head.number,
      ));
    if (fetched.blocks.length === 0 || fetched.blocks[0]?.number !== next || signal?.aborted) return false;
    const parent = await scannedBlock(this.s.db, next - 1);
    if (parent && fetched.blocks[0].parentHash !== parent.hash) {
      await rollbackFork(this.writer, cursor, head, solid, followNode);
      return true;
    }
    const blocks = contiguous(fetched.blocks);
    // The solid height may be among the blocks just fetched (the stored ones were checked above).
    sameSolid(solid, blocks.find((b) => b.number === solid.number)?.id);
    const last = blocks[blocks.length - 1] as ScanBlock;
    // While behind, the next ranges are fetched while this one is matched and committed.
    if (last.number < head.number)
      fillPrefetch(this.source, this.prefetched, last.number + 1, head.number, solid.number);
    // After the fetch: any address a payment in these blocks was sent to was committed before it.
    const watched = await this.depositAddressesIn(blocks, fetched.infos);
    const found = blocks.flatMap((b) => matchBlock(b, fetched.infos.get(b.number)?.logs ?? null, watched, this.tokens));
    const transfers = blocks.flatMap((b) =>
      outgoingOf(b, fetched.infos.get(b.number)?.logs ?? null, watched.hotHex, this.tokens),
    );
    // And every other transaction the hot wallet owns (hot-wallet-acts.ts).
    const outgoing = [...transfers, ...blocks.flatMap((b) => actsOf(b, transfers))];
    // Final only up to what was solid when these blocks were fetched, confirmed only by the blocks
    // seen on top of them then: the next range (or the head's hash) shows that the node's chain
    // still holds them, and then the heights above them count. And final only once the scan has
    // reached the solid block, which was then checked to be the block scanned at its height
    // (checkSolid, sameSolid): while a catch-up is below it, the solid host may be on another
    // chain than the blocks scanned, so nothing more becomes final until the scan gets there.
    const checked = solid.number <= last.number;
    const more = await commitRange(
      this.writer,
      cursor,
      { number: Math.min(head.number, fetched.head), solid: Math.min(solid.number, fetched.solid), checked },
      blocks,
      found,
      outgoing,
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

  /**
   * First start: from about when the oldest deposit address was handed out, else the head; after a
   * restore of a backup that had no cursor, from no later than its oldest held payout (its chain
   * reading must see what left since).
   */
  private async start(head: ChainBlockHeader): Promise<Cursor> {
    const oldest = await this.s.db
      .selectFrom('deposit_addresses')
      .select((eb) => eb.fn.min('created_at').as('at'))
      .executeTakeFirst();
    const reading = await readingState(this.s.db);
    const since = [oldest?.at, reading?.done_at === null ? reading.from_time : undefined]
      .filter((x): x is string => typeof x === 'string')
      .sort()[0];
    let next = head.number;
    if (since) {
      const back = Math.ceil(Math.max(0, head.timestamp - Date.parse(since)) / BLOCK_MS) + 20;
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
