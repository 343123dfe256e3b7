/**
 * `paygate sweep`: the CLI holds no keys, so it records a request and the `serve` process that
 * holds the worker lease (with the unlocked wallet) carries it out on its next sweeper tick
 * (serveSweepRequest). The CLI follows the request's sweeps in the database until they end.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AssetCatalog } from '../assets/catalog.js';
import { isTronAddress } from '../chain/address.js';
import type { TronClient } from '../chain/client.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import type { SweepRequestTarget, SweepTrigger } from '../db/tables/sweeper.js';
import { AppError } from '../errors.js';
import { formatUnits } from '../money.js';
import { recordAudit } from '../audit/store.js';
import { LeaseLostError, liveLease } from '../runtime/lease.js';
import { sweepable, sweepOrder, tokensFirst } from './plan.js';
import { allDuePairs } from './scan.js';
import {
  depositIndexOf,
  findRequest,
  findSweep,
  insertRequest,
  lastFinalBlock,
  nonEmptyMarks,
  openSweepOf,
  pendingRequest,
  setMarkBalance,
  txsOf,
  updateRequest,
  upsertMark,
  type SweepRequestRow,
  type SweepRow,
} from './store.js';

export interface SweepTxView {
  step: string;
  txid: string;
  status: string;
  fee_trx: string | null;
}

export interface SweepView {
  sweep_id: string;
  address: string;
  asset: string;
  status: string;
  trigger: string;
  balance: string;
  amount: string | null;
  fee_trx: string;
  top_up_trx: string;
  delegated_trx: string;
  last_error: string | null;
  transactions: SweepTxView[];
}

export interface SweepRequestView {
  request_id: string;
  status: string;
  address: string | null;
  targets: (Omit<SweepRequestTarget, 'sweep_id'> & { sweep: SweepView | null })[];
}

const trx = (sun: string | null) => (sun === null ? null : formatUnits(sun, 6));

export async function sweepView(db: Db, catalog: AssetCatalog, id: string): Promise<SweepView | null> {
  const s = await findSweep(db, id);
  if (!s) return null;
  const decimals = catalog.get(s.asset)?.decimals ?? 0;
  const txs = await txsOf(db, id);
  return {
    sweep_id: s.id,
    address: s.address,
    asset: s.asset,
    status: s.status,
    trigger: s.trigger,
    balance: formatUnits(s.balance, decimals),
    amount: s.amount === null ? null : formatUnits(s.amount, decimals),
    fee_trx: trx(s.fee) as string,
    top_up_trx: trx(s.top_up) as string,
    delegated_trx: trx(s.delegated) as string,
    last_error: s.last_error,
    transactions: txs.map((t) => ({ step: t.step, txid: t.txid, status: t.status, fee_trx: trx(t.fee) })),
  };
}

export async function sweepRequestView(db: Db, catalog: AssetCatalog, id: string): Promise<SweepRequestView> {
  const r = await findRequest(db, id);
  if (!r) throw new AppError('invalid_argument', `No sweep request ${id}`);
  const targets = JSON.parse(r.targets) as SweepRequestTarget[];
  const out: SweepRequestView['targets'] = [];
  for (const t of targets)
    out.push({
      address: t.address,
      asset: t.asset,
      state: t.state,
      sweep: t.sweep_id ? await sweepView(db, catalog, t.sweep_id) : null,
    });
  return { request_id: r.id, status: r.status, address: r.address, targets: out };
}

/** Records a request for the running serve; refused when no serve holds the worker lease. */
export async function requestSweep(db: Db, clock: Clock, actor: string, address: string | null): Promise<string> {
  if (address !== null) {
    if (!isTronAddress(address)) throw new AppError('invalid_argument', `--address is not a TRON address: ${address}`);
    if ((await depositIndexOf(db, address)) === undefined)
      throw new AppError('invalid_argument', `--address ${address} is not a deposit address of this wallet`);
  }
  const id = `swr_${randomUUID().replaceAll('-', '')}`;
  await writeTx(db, async (trx) => {
    const lease = await liveLease(trx, clock);
    if (!lease?.live) {
      throw new AppError(
        'invalid_state',
        'No running `paygate serve` holds the worker lease; sweeps are signed only there. Start serve and try again',
      );
    }
    const at = clock.now().toISOString();
    await insertRequest(trx, { id, address, status: 'pending', targets: '[]', actor, created_at: at, updated_at: at });
    await recordAudit(trx, clock, {
      actor,
      action: 'sweep.request',
      subjectType: 'sweep_request',
      subjectId: id,
      details: { address },
    });
  });
  return id;
}

/** Polls the request until it is done; `progress` gets one line per change (for stderr). */
export async function waitForSweepRequest(
  db: Db,
  catalog: AssetCatalog,
  id: string,
  opts: { timeoutMs: number; pollMs?: number; progress?: (line: string) => void },
): Promise<SweepRequestView> {
  const deadline = Date.now() + opts.timeoutMs;
  const said = new Set<string>();
  for (;;) {
    const v = await sweepRequestView(db, catalog, id);
    for (const t of v.targets) {
      const lines = [`${t.address} ${t.asset}: ${t.state}`];
      if (t.sweep)
        for (const x of t.sweep.transactions) lines.push(`${t.address} ${t.asset}: ${x.step} ${x.txid} ${x.status}`);
      if (t.sweep && t.state !== 'pending')
        lines.push(
          `${t.address} ${t.asset}: ${t.sweep.status}, moved ${t.sweep.amount ?? '0'}, cost ${t.sweep.fee_trx} TRX`,
        );
      for (const l of lines) {
        if (said.has(l) || l.endsWith(': pending')) continue;
        said.add(l);
        opts.progress?.(l);
      }
    }
    if (v.status === 'done') return v;
    if (Date.now() > deadline)
      throw new AppError('invalid_state', `Sweep request ${id} is still running; serve carries on with it`);
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
  }
}

/** What serving a request needs of the sweeper that carries it out. */
export interface RequestServing {
  db: Db;
  /** Where the due pairs are read, slice by slice. */
  scans: Executor;
  scanSlice: number;
  catalog: AssetCatalog;
  chain: TronClient;
  /** The hot wallet's address: what a TRX sweep can move depends on it. */
  hot: string;
  clock: Clock;
  logger: Logger;
  /** Starts a sweep of one address and asset; null while another sweep of the address is open. */
  start(
    address: string,
    asset: string,
    trigger: SweepTrigger,
    balance: bigint,
    requestId: string,
  ): Promise<SweepRow | null>;
}

/** The oldest `paygate sweep` request: starts its sweeps (threshold ignored) and notes outcomes. */
export async function serveSweepRequest(r: RequestServing): Promise<void> {
  const req = await pendingRequest(r.db);
  if (!req) return;
  const targets =
    req.status === 'pending' ? await targetsOf(r, req) : (JSON.parse(req.targets) as SweepRequestTarget[]);
  for (const t of targets) {
    if (t.state !== 'pending') continue;
    try {
      await serveTarget(r, req, t);
    } catch (err) {
      if (err instanceof LeaseLostError) throw err;
      r.logger.warn(
        { err, request: req.id, address: t.address, asset: t.asset },
        'sweep request target failed; retried on the next tick',
      );
    }
  }
  const done = targets.every((t) => t.state !== 'pending');
  await updateRequest(r.db, req.id, done ? 'done' : 'running', targets, r.clock.now().toISOString());
}

/** A new request's targets: every asset of its address, or every address and asset that may hold funds. */
async function targetsOf(r: RequestServing, req: SweepRequestRow): Promise<SweepRequestTarget[]> {
  const pending = (address: string, asset: string): SweepRequestTarget => ({
    address,
    asset,
    state: 'pending',
    sweep_id: null,
  });
  if (req.address) {
    const assets = [...r.catalog.assets].sort((a, b) => tokensFirst(a) - tokensFirst(b));
    return assets.map((a) => pending(req.address as string, a.code));
  }
  const seen = new Set<string>();
  const out: SweepRequestTarget[] = [];
  // Slice by slice, so that a request on a large database does not hold the event loop.
  for (const p of [...(await allDuePairs(r.scans, 10_000, r.scanSlice)), ...(await nonEmptyMarks(r.db))]) {
    const k = `${p.address}|${p.asset}`;
    if (!seen.has(k)) out.push(pending(p.address, p.asset));
    seen.add(k);
  }
  return out.sort(sweepOrder(r.catalog));
}

/** One target of a request: note how its sweep ended, or start it once the address is free. */
async function serveTarget(r: RequestServing, req: SweepRequestRow, t: SweepRequestTarget): Promise<void> {
  if (t.sweep_id) {
    const s = await findSweep(r.db, t.sweep_id);
    if (s && s.status !== 'open') t.state = s.status;
    return;
  }
  if (await openSweepOf(r.db, t.address)) return;
  const asset = r.catalog.get(t.asset);
  const amount = asset ? await sweepable(r.chain, asset, t.address, r.hot) : 0n;
  if (amount === 0n) {
    t.state = 'empty';
    await setMarkBalance(r.db, t.address, t.asset, '0', r.clock.now().toISOString());
    return;
  }
  // What the sweep will move includes every final deposit so far: mark them looked at.
  const last = await lastFinalBlock(r.db, t.address, t.asset);
  if (last !== null)
    await upsertMark(r.db, {
      address: t.address,
      asset: t.asset,
      checked_block: last,
      balance: amount.toString(),
      checked_at: r.clock.now().toISOString(),
    });
  const s = await r.start(t.address, t.asset, 'manual', amount, req.id);
  if (s) t.sweep_id = s.id;
  if (s?.status === 'refused') t.state = 'refused';
}
