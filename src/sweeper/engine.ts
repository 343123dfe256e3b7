/**
 * The sweeper: moves what deposit addresses hold into the hot wallet. Each tick it serves the
 * operator's `paygate sweep` requests (requests.ts), looks at addresses with final deposits it has
 * not checked (sweeping those whose on-chain balance reaches the asset's threshold), and moves
 * every open sweep one step on (advance.ts). Runs only in the process holding the worker lease,
 * with the wallet unlocked.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { isUniqueViolation, type Db } from '../db/database.js';
import type { SweepTrigger } from '../db/tables/sweeper.js';
import type { Services } from '../services.js';
import { LeaseLostError, type WorkerLease } from '../runtime/lease.js';
import { finalityStop } from '../watcher/stop.js';
import { ALL_ASSETS, isWorkerHalted } from '../payouts/halts.js';
import { ProofThrottle } from '../chain/absence.js';
import { advanceSweep, type AdvanceContext } from './advance.js';
import { KeyMismatchError, type Signer } from '../wallet/signer.js';
import { sweepable, sweepOrder } from './plan.js';
import { serveSweepRequest, type RequestServing } from './requests.js';
import { FullScan, SCAN_SLICE, type ScanOptions } from './scan.js';
import {
  activeSweeps,
  depositIndexOf,
  duePairsSince,
  insertSweep,
  openSweepOf,
  upsertMark,
  type DuePair,
  type SweepRow,
} from './store.js';
import { thresholdOf } from './thresholds.js';

export interface SweeperOptions {
  /** Sweeps advanced per tick. */
  batch?: number;
  /** Longest wait before a failed sweep is tried again (default 1 h). */
  maxRetryMs?: number;
  /** Most transactions one sweep may sign before it waits for the operator's eyes (default 12). */
  maxTxs?: number;
  /** Due address and asset pairs checked per tick (default 50). */
  dueBatch?: number;
  /** The full scan's slices (see scan.ts). */
  scan?: ScanOptions;
}

const DUE_BATCH = 50;
/** Margin for clock skew on the look at recently final deposits. */
const SKEW_MS = 60_000;

export class Sweeper {
  /** What moving a sweep on needs (advance.ts, steps.ts). */
  private readonly ctx: AdvanceContext;
  /** What serving the operator's sweep requests needs (requests.ts). */
  private readonly requests: RequestServing;
  private readonly log: Logger;
  private readonly batch: number;
  private readonly dueBatch: number;
  private readonly fullScan: FullScan;
  /** Deposits updated since then are looked at every tick; older ones are the full scan's. */
  private lastScan: number;

  constructor(
    private readonly s: Services,
    private readonly signer: Signer,
    lease: WorkerLease,
    opts: SweeperOptions = {},
  ) {
    const hot = signer.hotAddress;
    this.log = s.logger.child({ component: 'sweeper' });
    const scans = s.scans ?? s.db;
    this.ctx = {
      db: s.db,
      clock: s.clock,
      chain: s.chain,
      lease,
      signer,
      logger: this.log,
      hot,
      proofs: new ProofThrottle(),
      catalog: s.catalog,
      maxRetryMs: opts.maxRetryMs ?? 3_600_000,
      maxTxs: opts.maxTxs ?? 12,
    };
    this.requests = {
      db: s.db,
      scans,
      scanSlice: opts.scan?.slice ?? SCAN_SLICE,
      catalog: s.catalog,
      chain: s.chain,
      hot,
      clock: s.clock,
      logger: this.log,
      start: (address, asset, trigger, balance, requestId) => this.start(address, asset, trigger, balance, requestId),
    };
    this.batch = opts.batch ?? 20;
    this.dueBatch = opts.dueBatch ?? DUE_BATCH;
    this.fullScan = new FullScan(scans, opts.scan);
    this.lastScan = s.clock.now().getTime();
  }

  get hotAddress(): string {
    return this.ctx.hot;
  }

  private get db(): Db {
    return this.s.db;
  }

  private now(): string {
    return this.s.clock.now().toISOString();
  }

  /** One round; resolves true when more work is waiting at once. */
  async tick(signal?: AbortSignal): Promise<boolean> {
    // Nothing is signed while the operator's brake on every asset holds (`payout halt --worker`,
    // which `paygate restore` sets) or while the node contradicts finality.
    if ((await isWorkerHalted(this.db, ALL_ASSETS)) || (await finalityStop(this.db))) return false;
    try {
      await serveSweepRequest(this.requests);
      if (signal?.aborted) return false;
      await this.checkDue();
      const sweeps = await activeSweeps(this.db, this.now(), this.batch);
      for (const sweep of sweeps) {
        if (signal?.aborted) return false;
        await advanceSweep(this.ctx, sweep);
      }
    } catch (err) {
      if (!(err instanceof LeaseLostError)) throw err;
      this.log.warn('worker lease lost: the sweeper stops; nothing more is written, signed or sent');
    }
    return false;
  }

  /** Starts a sweep of one address and asset (refused at once when the key does not match). */
  async start(
    address: string,
    asset: string,
    trigger: SweepTrigger,
    balance: bigint,
    requestId: string | null = null,
  ): Promise<SweepRow | null> {
    const index = await depositIndexOf(this.db, address);
    let keyOk = index !== undefined;
    if (index !== undefined) {
      try {
        await this.signer.withDepositKey(index, address, async () => undefined);
      } catch (e) {
        if (!(e instanceof KeyMismatchError)) throw e;
        keyOk = false;
      }
    }
    const at = this.now();
    const row: SweepRow = {
      id: `swp_${randomUUID().replaceAll('-', '')}`,
      address,
      derivation_index: index ?? -1,
      asset,
      trigger,
      request_id: requestId,
      status: keyOk ? 'open' : 'refused',
      balance: balance.toString(),
      amount: null,
      fee: '0',
      top_up: '0',
      delegated: '0',
      failures: 0,
      last_error: keyOk ? null : 'the key derived for the stored index does not give this address',
      retry_at: null,
      created_at: at,
      updated_at: at,
      finished_at: keyOk ? null : at,
    };
    try {
      await insertSweep(this.db, row);
    } catch (e) {
      // Another sweep of this address is open (the unique index on open sweeps' address).
      if (isUniqueViolation(e, 'sweeps', ['address'])) return null;
      throw e;
    }
    if (!keyOk) {
      this.log.error(
        { alert: 'sweep_key_mismatch', sweep: row.id, address, asset, derivation_index: index ?? null },
        'ALERT: refusing to sweep: the derived key does not match the stored address',
      );
    } else {
      this.log.info({ sweep: row.id, address, asset, trigger, balance: row.balance }, 'sweep started');
    }
    return row;
  }

  /** Addresses with final deposits since they were last checked: sweep those over the threshold. */
  private async checkDue(): Promise<void> {
    // Every tick: pairs with deposits updated (turned final) since the last look, with a margin for
    // clock skew. What that misses (deposits final while serve was down, pairs whose check failed)
    // comes from the full scan's slices, in the room the batch has left.
    const startedAt = this.s.clock.now().getTime();
    // A fifth of the batch is kept for the full scan: pairs that stay due in the recent look (an
    // open sweep, a node that keeps failing) must not starve the safety net.
    const freshRoom = this.dueBatch - Math.floor(this.dueBatch / 5);
    const fresh = await duePairsSince(this.db, new Date(this.lastScan - SKEW_MS).toISOString(), freshRoom);
    if (fresh.length < freshRoom) this.lastScan = startedAt;
    const scanned = await this.fullScan.next(startedAt, this.dueBatch - fresh.length);
    const pairs = [...new Map([...fresh, ...scanned].map((p) => [`${p.address}|${p.asset}`, p])).values()];
    pairs.sort(sweepOrder(this.s.catalog));
    for (const p of pairs) {
      try {
        await this.checkPair(p);
      } catch (err) {
        if (err instanceof LeaseLostError) throw err;
        // One address the node cannot answer for must not hold up the others or the open sweeps;
        // it stays unchecked and the full scan's next pass finds it again.
        this.log.warn(
          { err, address: p.address, asset: p.asset },
          'sweep check failed; retried on the next pass of the full scan',
        );
      }
    }
  }

  private async checkPair(p: DuePair): Promise<void> {
    if (await openSweepOf(this.db, p.address)) return; // checked again once that sweep ends
    const asset = this.s.catalog.get(p.asset);
    const at = this.now();
    if (!asset) {
      await upsertMark(this.db, {
        address: p.address,
        asset: p.asset,
        checked_block: p.last_block,
        balance: '0',
        checked_at: at,
      });
      return;
    }
    const amount = await sweepable(this.s.chain, asset, p.address, this.ctx.hot);
    const threshold = await thresholdOf(this.db, asset);
    await upsertMark(this.db, {
      address: p.address,
      asset: p.asset,
      checked_block: p.last_block,
      balance: amount.toString(),
      checked_at: at,
    });
    if (amount > 0n && amount >= threshold) await this.start(p.address, p.asset, 'auto', amount);
    else
      this.log.debug(
        { address: p.address, asset: p.asset, amount: amount.toString(), threshold: threshold.toString() },
        'below the sweep threshold',
      );
  }
}
