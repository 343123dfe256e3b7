/**
 * What goes wrong during the soak: node faults (errors, HTTP 5xx, latency, hangs, SERVER_BUSY,
 * lost broadcast answers), forks of depth 1..18 in both modes, and restarts of `serve` by SIGTERM
 * and SIGKILL, some timed to land while a payout is being signed or broadcast.
 */
import type { FaultSpec } from '../../../src/devnet/index.js';
import { readCursor } from '../../../src/watcher/store.js';
import { sleep } from './api.js';
import type { Rng } from './rng.js';
import type { ServeProcess } from './serve.js';
import { CONFIRMATIONS, type SoakWorld } from './setup.js';

export interface ChaosLog {
  faults: Record<string, number>;
  faultIds: number[];
  forks: Record<string, number>;
  /** Forks deeper than CONFIRMATIONS: they cut below deposits that were already `confirmed`. */
  forksPastConfirmation: number;
  forkedTxs: { dropped: number; reincluded: number };
  /** Payout transactions (signed by paygate) that forks dropped or re-included. */
  forkedPayouts: { dropped: number; reincluded: number };
  /** Forks that replaced blocks the watcher had already scanned, and the deposits they cut under. */
  forksBelowWatcher: number;
  forkedDeposits: { seen: number; confirmed: number };
  restarts: { SIGTERM: number; SIGKILL: number; midPayout: number };
  /** SIGTERMs that did not end `serve` with exit code 0. */
  badStops: string[];
  downMs: number;
}

export function newChaosLog(): ChaosLog {
  return {
    faults: {},
    faultIds: [],
    forks: {},
    forksPastConfirmation: 0,
    forkedTxs: { dropped: 0, reincluded: 0 },
    forkedPayouts: { dropped: 0, reincluded: 0 },
    forksBelowWatcher: 0,
    forkedDeposits: { seen: 0, confirmed: 0 },
    restarts: { SIGTERM: 0, SIGKILL: 0, midPayout: 0 },
    badStops: [],
    downMs: 0,
  };
}

interface Ctx {
  world: SoakWorld;
  serve: ServeProcess;
  log: ChaosLog;
  running: () => boolean;
}

const NODE_PATHS = [
  '/wallet',
  '/walletsolidity',
  '/wallet/getnowblock',
  '/wallet/getblock',
  '/wallet/gettransactioninfobyblocknum',
  '/wallet/broadcasttransaction',
  '/wallet/gettransactioninfobyid',
  '/walletsolidity/gettransactioninfobyid',
];

function randomFault(rng: Rng): FaultSpec {
  const kind = rng.pick([
    'error',
    'error',
    'http',
    'http',
    'latency',
    'latency',
    'hang',
    'busy',
    'lost_answer',
  ] as const);
  const path = rng.pick(NODE_PATHS);
  switch (kind) {
    case 'error':
      return { kind, path, times: rng.int(1, 6) };
    case 'http':
      return { kind, path, times: rng.int(1, 6), status: rng.pick([500, 502, 503, 504]) };
    case 'latency':
      return { kind, path, times: rng.int(1, 10), ms: rng.int(100, 2500) };
    case 'hang':
      // A hang costs the client its whole timeout: one request at a time.
      return { kind, path, times: 1 };
    case 'busy':
      return { kind, path: '/wallet/broadcasttransaction', times: rng.int(1, 3) };
    default:
      return { kind, path: '/wallet/broadcasttransaction', times: rng.int(1, 2) };
  }
}

/**
 * Storms and calm: a few seconds of faults coming about every second, then a calm spell longer
 * than the workers' longest backoff (30 s) in a long run. A node that fails without pause would
 * only keep the watcher backing off far behind the head, and forks would then never cut into
 * blocks it had scanned.
 */
export async function faultLoop(ctx: Ctx, rng: Rng, durationMs: number): Promise<void> {
  while (ctx.running()) {
    await sleep(rng.int(Math.min(15_000, durationMs / 8), Math.min(35_000, durationMs / 4)));
    const stormEnd = Date.now() + rng.int(2_000, 5_000);
    while (ctx.running() && Date.now() < stormEnd) {
      const f = ctx.world.devnet.control.addFault(randomFault(rng));
      ctx.log.faults[f.kind] = (ctx.log.faults[f.kind] ?? 0) + 1;
      ctx.log.faultIds.push(f.id);
      await sleep(rng.int(300, 1_200));
    }
  }
}

export async function forkLoop(ctx: Ctx, rng: Rng, watchedTxs: () => Set<string>): Promise<void> {
  while (ctx.running()) {
    await sleep(rng.int(1500, 6000));
    const depth = rng.int(1, 18);
    const mode = rng.pick(['drop', 'reinclude'] as const);
    // What the watcher and the worker had recorded just before: the reads come first, then the
    // fork at once (no await between), so blocks made meanwhile cannot shift the fork's base.
    const db = ctx.world.database.db;
    const cursor = await readCursor(db);
    const recent = await db
      .selectFrom('deposits')
      .select(['status', 'block_number'])
      .where('block_number', '>', ctx.world.devnet.control.info().head.number - 40)
      .where('status', '!=', 'orphaned')
      .execute();
    const payoutTxs = new Set(
      (await db.selectFrom('payouts').select('tx_hash').where('tx_hash', 'is not', null).execute()).map(
        (p) => p.tx_hash,
      ),
    );
    const info = ctx.world.devnet.control.info();
    if (info.head.number - info.solid.number < depth) continue;
    const base = info.head.number - depth;
    const cut = recent.filter((d) => d.block_number > base);
    const report = ctx.world.devnet.control.fork(depth, mode);
    ctx.log.forkedPayouts.dropped += report.dropped.filter((t) => payoutTxs.has(t)).length;
    ctx.log.forkedPayouts.reincluded += report.reincluded.filter((t) => payoutTxs.has(t)).length;
    if ((cursor?.next_block ?? 0) > base + 1) ctx.log.forksBelowWatcher += 1;
    ctx.log.forkedDeposits.seen += cut.length;
    ctx.log.forkedDeposits.confirmed += cut.filter((d) => d.status === 'confirmed').length;
    const key = `${mode}:${depth}`;
    ctx.log.forks[key] = (ctx.log.forks[key] ?? 0) + 1;
    if (depth > CONFIRMATIONS) ctx.log.forksPastConfirmation += 1;
    const ours = watchedTxs();
    ctx.log.forkedTxs.dropped += report.dropped.filter((t) => ours.has(t)).length;
    ctx.log.forkedTxs.reincluded += report.reincluded.filter((t) => ours.has(t)).length;
  }
}

/** Waits (at most `ms`) for a payout between signing and confirmation, so the kill lands mid-payout. */
async function waitForPayoutInFlight(ctx: Ctx, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const row = await ctx.world.database.db
      .selectFrom('payouts')
      .select('id')
      .where('status', 'in', ['signing', 'broadcast'])
      .limit(1)
      .executeTakeFirst();
    if (row) return true;
    await sleep(10);
  }
  return false;
}

export async function restart(ctx: Ctx, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  const down = Date.now();
  const exit = await ctx.serve.stop(signal);
  if (exit) {
    ctx.log.restarts[signal] += 1;
    if (signal === 'SIGTERM' && exit.code !== 0)
      ctx.log.badStops.push(`SIGTERM ended serve with code ${exit.code}, signal ${exit.signal}`);
  }
  // A start that fails (it prints why) is a violation; the soak tries again so the run can finish.
  for (let attempt = 1; ; attempt++) {
    try {
      await ctx.serve.start();
      break;
    } catch (e) {
      ctx.log.badStops.push(`start ${attempt} after ${signal} failed: ${(e as Error).message.slice(0, 2000)}`);
      if (attempt === 3) throw e;
    }
  }
  ctx.log.downMs += Date.now() - down;
}

export async function restartLoop(ctx: Ctx, rng: Rng, meanGapMs: number): Promise<void> {
  // The first two restarts are one of each kind, so even a short run has both.
  const order: ('SIGTERM' | 'SIGKILL')[] = ['SIGKILL', 'SIGTERM'];
  while (ctx.running()) {
    await sleep(rng.int(Math.floor(meanGapMs / 2), Math.floor(meanGapMs * 1.5)));
    if (!ctx.running()) break;
    const signal = order.shift() ?? rng.pick(['SIGTERM', 'SIGKILL'] as const);
    if (rng.chance(0.5) && (await waitForPayoutInFlight(ctx, 5_000))) ctx.log.restarts.midPayout += 1;
    await restart(ctx, signal);
  }
}
