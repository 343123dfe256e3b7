/**
 * The sweeper: moves what deposit addresses hold into the hot wallet. Each tick it serves the
 * operator's `paygate sweep` requests, looks at addresses with final deposits it has not checked
 * (sweeping those whose on-chain balance reaches the asset's threshold), and moves every open sweep
 * one step on. Runs only in the process holding the worker lease, with the wallet unlocked.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { CatalogAsset } from '../assets/catalog.js';
import { isTransientTronError } from '../chain/errors.js';
import { isUniqueViolation, type Db } from '../db/database.js';
import type { SweepRequestTarget, SweepTrigger } from '../db/tables/sweeper.js';
import type { Services } from '../services.js';
import { LeaseLostError, type WorkerLease } from '../runtime/lease.js';
import { finalityStop } from '../watcher/stop.js';
import { ALL_ASSETS, isWorkerHalted } from '../payouts/halts.js';
import { hotAddressOf, KeyMismatchError, withDepositKey } from './keys.js';
import { balanceOf, nextStep, trxSweepable } from './plan.js';
import { allDuePairs, FullScan, SCAN_SLICE, type ScanOptions } from './scan.js';
import { refreshTotals, resolve, signAndSend, SweepConflictError, type StepContext } from './steps.js';
import { ProofThrottle } from '../chain/absence.js';
import {
  activeSweeps,
  depositIndexOf,
  duePairsSince,
  findSweep,
  insertSweep,
  lastFinalBlock,
  nonEmptyMarks,
  openSweepOf,
  pendingRequest,
  setMarkBalance,
  txsOf,
  updateRequest,
  updateSweep,
  updateTx,
  upsertMark,
  type DuePair,
  type SweepRequestRow,
  type SweepRow,
  type SweepTxRow,
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

const ORDER = (a: CatalogAsset | undefined) => (a?.type === 'native' ? 1 : 0);
const DUE_BATCH = 50;
/** Margin for clock skew on the look at recently final deposits. */
const SKEW_MS = 60_000;

export class Sweeper {
  private readonly ctx: StepContext;
  private readonly log: Logger;
  private readonly batch: number;
  private readonly maxRetryMs: number;
  private readonly maxTxs: number;
  private readonly dueBatch: number;
  private readonly scanSlice: number;
  private readonly fullScan: FullScan;
  /** Deposits updated since then are looked at every tick; older ones are the full scan's. */
  private lastScan: number;

  constructor(
    private readonly s: Services,
    lease: WorkerLease,
    opts: SweeperOptions = {},
  ) {
    if (!s.wallet) throw new Error('the sweeper signs: it needs the unlocked wallet (serve)');
    const hot = hotAddressOf(s.wallet);
    if (hot !== s.wallet.hotAddress) throw new Error('the hot wallet key does not give the keystore hot address');
    this.log = s.logger.child({ component: 'sweeper' });
    this.ctx = {
      db: s.db,
      clock: s.clock,
      chain: s.chain,
      lease,
      wallet: s.wallet,
      logger: this.log,
      hot,
      proofs: new ProofThrottle(),
    };
    this.batch = opts.batch ?? 20;
    this.maxRetryMs = opts.maxRetryMs ?? 3_600_000;
    this.maxTxs = opts.maxTxs ?? 12;
    this.dueBatch = opts.dueBatch ?? DUE_BATCH;
    this.scanSlice = opts.scan?.slice ?? SCAN_SLICE;
    this.fullScan = new FullScan(s.scans ?? s.db, opts.scan);
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
      await this.serveRequest();
      if (signal?.aborted) return false;
      await this.checkDue();
      const sweeps = await activeSweeps(this.db, this.now(), this.batch);
      for (const sweep of sweeps) {
        if (signal?.aborted) return false;
        await this.advanceSafely(sweep);
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
        await withDepositKey(this.s.wallet!, index, address, async () => undefined);
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

  private async sweepable(asset: CatalogAsset, address: string): Promise<bigint> {
    return asset.type === 'native'
      ? (await trxSweepable(this.s.chain, address, this.ctx.hot)).amount
      : balanceOf(this.s.chain, asset, address);
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
    pairs.sort(
      (a, b) =>
        a.address.localeCompare(b.address) || ORDER(this.s.catalog.get(a.asset)) - ORDER(this.s.catalog.get(b.asset)),
    );
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
    const amount = await this.sweepable(asset, p.address);
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

  private async targetsOf(req: SweepRequestRow): Promise<SweepRequestTarget[]> {
    const pending = (address: string, asset: string): SweepRequestTarget => ({
      address,
      asset,
      state: 'pending',
      sweep_id: null,
    });
    if (req.address) {
      const assets = [...this.s.catalog.assets].sort((a, b) => ORDER(a) - ORDER(b));
      return assets.map((a) => pending(req.address as string, a.code));
    }
    const seen = new Set<string>();
    const out: SweepRequestTarget[] = [];
    // Slice by slice, so that a request on a large database does not hold the event loop.
    for (const p of [
      ...(await allDuePairs(this.s.scans ?? this.db, 10_000, this.scanSlice)),
      ...(await nonEmptyMarks(this.db)),
    ]) {
      const k = `${p.address}|${p.asset}`;
      if (!seen.has(k)) out.push(pending(p.address, p.asset));
      seen.add(k);
    }
    return out.sort(
      (a, b) =>
        a.address.localeCompare(b.address) || ORDER(this.s.catalog.get(a.asset)) - ORDER(this.s.catalog.get(b.asset)),
    );
  }

  /** The oldest `paygate sweep` request: starts its sweeps (threshold ignored) and notes outcomes. */
  private async serveRequest(): Promise<void> {
    const req = await pendingRequest(this.db);
    if (!req) return;
    const targets =
      req.status === 'pending' ? await this.targetsOf(req) : (JSON.parse(req.targets) as SweepRequestTarget[]);
    for (const t of targets) {
      if (t.state !== 'pending') continue;
      try {
        await this.serveTarget(req, t);
      } catch (err) {
        if (err instanceof LeaseLostError) throw err;
        this.log.warn(
          { err, request: req.id, address: t.address, asset: t.asset },
          'sweep request target failed; retried on the next tick',
        );
      }
    }
    const done = targets.every((t) => t.state !== 'pending');
    await updateRequest(this.db, req.id, done ? 'done' : 'running', targets, this.now());
  }

  /** One target of a request: note how its sweep ended, or start it once the address is free. */
  private async serveTarget(req: SweepRequestRow, t: SweepRequestTarget): Promise<void> {
    if (t.sweep_id) {
      const s = await findSweep(this.db, t.sweep_id);
      if (s && s.status !== 'open') t.state = s.status;
      return;
    }
    if (await openSweepOf(this.db, t.address)) return;
    const asset = this.s.catalog.get(t.asset);
    const amount = asset ? await this.sweepable(asset, t.address) : 0n;
    if (amount === 0n) {
      t.state = 'empty';
      await setMarkBalance(this.db, t.address, t.asset, '0', this.now());
      return;
    }
    // What the sweep will move includes every final deposit so far: mark them looked at.
    const last = await lastFinalBlock(this.db, t.address, t.asset);
    if (last !== null)
      await upsertMark(this.db, {
        address: t.address,
        asset: t.asset,
        checked_block: last,
        balance: amount.toString(),
        checked_at: this.now(),
      });
    const s = await this.start(t.address, t.asset, 'manual', amount, req.id);
    if (s) t.sweep_id = s.id;
    if (s?.status === 'refused') t.state = 'refused';
  }

  private async advanceSafely(sweep: SweepRow): Promise<void> {
    try {
      await this.advance(sweep);
    } catch (e) {
      if (e instanceof SweepConflictError) return;
      if (e instanceof LeaseLostError) {
        // Another process holds the lease now: it carries the sweep on; nothing was stored or sent.
        this.log.warn({ sweep: sweep.id }, 'worker lease lost before recording a sweep step; dropped unsent');
        throw e;
      }
      if (e instanceof KeyMismatchError) {
        await updateSweep(this.db, sweep.id, {
          status: 'refused',
          last_error: 'the key derived for the stored index does not give this address',
          finished_at: this.now(),
          updated_at: this.now(),
        });
        this.log.error(
          {
            alert: 'sweep_key_mismatch',
            sweep: sweep.id,
            address: sweep.address,
            derivation_index: sweep.derivation_index,
          },
          'ALERT: refusing to sign: the derived key does not match the stored address',
        );
        return;
      }
      if (isTransientTronError(e)) {
        this.log.warn({ err: e, sweep: sweep.id }, 'sweep waits for the node');
        return;
      }
      await this.fail(sweep, e instanceof Error ? e.message : String(e));
    }
  }

  private async fail(sweep: SweepRow, reason: string): Promise<void> {
    const failures = sweep.failures + 1;
    const waitMs = Math.min(this.maxRetryMs, 30_000 * 2 ** Math.min(failures - 1, 16));
    const at = this.s.clock.now();
    await updateSweep(this.db, sweep.id, {
      failures,
      last_error: reason.slice(0, 500),
      retry_at: new Date(at.getTime() + waitMs).toISOString(),
      updated_at: at.toISOString(),
    });
    this.log.error(
      {
        alert: 'sweep_step_failed',
        sweep: sweep.id,
        address: sweep.address,
        asset: sweep.asset,
        failures,
        retry_in_ms: waitMs,
        reason,
      },
      'ALERT: sweep step failed; it will be retried',
    );
  }

  /**
   * A sweep is done only once its transfer is irreversible. A transfer whose block was forked
   * away goes back to `broadcast`: resolve() then sends the same bytes again or, once they expired
   * unincluded, lets the sweep sign anew.
   */
  private async transferIsSolid(txs: readonly SweepTxRow[]): Promise<boolean> {
    const transfer = txs.find((t) => t.step === 'transfer' && t.status === 'confirmed');
    if (!transfer) return true;
    if (await this.s.chain.getTransactionInfo(transfer.txid, { solid: true })) return true;
    if (!(await this.s.chain.getTransactionInfo(transfer.txid))) {
      await updateTx(this.db, transfer.id, ['confirmed'], { status: 'broadcast', updated_at: this.now() });
      this.log.warn(
        { sweep: transfer.sweep_id, txid: transfer.txid },
        'sweep transfer left the chain (fork); resolving it again',
      );
    }
    return false;
  }

  /** One step: resolve the unresolved transaction, or sign the next one, or finish. */
  private async advance(sweep: SweepRow): Promise<void> {
    const asset = this.s.catalog.get(sweep.asset);
    if (!asset) return this.fail(sweep, `asset ${sweep.asset} is not in the catalog`);
    const txs = await txsOf(this.db, sweep.id);
    const open = txs.find((t) => t.status === 'signed' || t.status === 'broadcast');
    if (open) {
      const r = await resolve(this.ctx, open);
      if (r === 'pending') return;
      await refreshTotals(this.db, sweep.id, this.now());
      if (r === 'failed') {
        const info = (await txsOf(this.db, sweep.id)).find((t) => t.id === open.id);
        return this.fail(sweep, `${open.step} ${open.txid} failed on chain: ${info?.receipt_result ?? 'FAILED'}`);
      }
      if (r === 'confirmed')
        this.log.info({ sweep: sweep.id, step: open.step, txid: open.txid }, 'sweep transaction confirmed');
      return;
    }
    // Expired transactions never landed; the bound is on what reached the chain.
    const landed = txs.filter((t) => t.status !== 'expired').length;
    if (landed >= this.maxTxs) return this.fail(sweep, `sweep has ${landed} transactions on chain without finishing`);
    const plan = await nextStep({ chain: this.s.chain, asset, address: sweep.address, hot: this.ctx.hot, txs });
    if (plan.kind === 'blocked') return this.fail(sweep, plan.reason);
    if (plan.kind === 'tx') {
      await signAndSend(this.ctx, sweep, asset, plan, txs.length + 1);
      return;
    }
    if (plan.status === 'done' && !(await this.transferIsSolid(txs))) return;
    const at = this.now();
    await refreshTotals(this.db, sweep.id, at);
    if (
      await updateSweep(this.db, sweep.id, { status: plan.status, retry_at: null, finished_at: at, updated_at: at })
    ) {
      await setMarkBalance(this.db, sweep.address, sweep.asset, '0', at);
      const done = await findSweep(this.db, sweep.id);
      this.log.info(
        {
          sweep: sweep.id,
          address: sweep.address,
          asset: sweep.asset,
          status: plan.status,
          amount: done?.amount,
          fee_sun: done?.fee,
          top_up_sun: done?.top_up,
          delegated_sun: done?.delegated,
        },
        'sweep finished',
      );
    }
  }
}
