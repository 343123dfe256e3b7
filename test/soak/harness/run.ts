/**
 * The soak: for a fixed time, payments, payouts and API traffic together against
 * the devnet, with node faults, forks and restarts of a real `serve`; then everything settles
 * (faults off, blocks to solidity, workers drained) and the invariants are checked (checks.ts).
 * scripts/soak.ts runs it; test/soak/soak.test.ts runs a short one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readCursor } from '../../../src/watcher/store.js';
import { sleep, SoakApi } from './api.js';
import { faultLoop, forkLoop, newChaosLog, restart, restartLoop, type ChaosLog } from './chaos.js';
import { allProblems } from './checks.js';
import { collectFacts } from './facts.js';
import { WebhookReceiver } from './receiver.js';
import { seededRng } from './rng.js';
import { ServeProcess } from './serve.js';
import { buildWorld, SOLID_LAG, type SoakWorld } from './setup.js';
import { addressLoop, invoiceLoop, newTrafficLog, payoutLoop, readLoop, type TrafficLog } from './traffic.js';

export interface SoakOptions {
  durationMs: number;
  seed: number;
  /** Keep the run's directory (database, facts.json) here instead of deleting it. */
  keepDir?: string;
  /** A postgres:// URL: the run's database is there (kept as it is) instead of a SQLite file. */
  databaseUrl?: string;
  /** Mean pause between restarts of `serve` (default: an eighth of the run, 4 to 30 s). */
  restartGapMs?: number;
  log?: (line: string) => void;
}

export interface SoakSummary {
  seed: number;
  duration_s: number;
  wall_s: number;
  settle_s: number;
  invoices: { created: number; by_status: Record<string, number> };
  permanent_address_requests: number;
  payments: { made: number; on_chain: number; dropped_by_forks: number };
  deposits: { by_status: Record<string, number>; credited: number };
  forks: {
    total: number;
    by_mode: Record<string, number>;
    by_depth: Record<string, number>;
    past_confirmation: number;
    below_watcher: number;
    cut_deposits: { seen: number; confirmed: number };
    payments_dropped: number;
    payments_reincluded: number;
    payouts_dropped: number;
    payouts_reincluded: number;
  };
  watcher_lag_blocks: { median: number; p95: number; max: number };
  faults: { by_kind: Record<string, number>; hit: number };
  restarts: ChaosLog['restarts'] & { down_s: number; starts: number };
  payouts: {
    requested: number;
    answers: Record<string, number>;
    by_status: Record<string, number>;
    operator: TrafficLog['operator'];
  };
  webhooks: { events: number; received: number; distinct: number; deliveries: Record<string, number> };
  api: { requests: number; by_status: Record<string, number>; no_answer: number; unanswered: number };
  violations: Record<string, string[]>;
  ok: boolean;
}

const SETTLE_TIMEOUT_MS = 300_000;
/** 18-block forks replace 3.6 s of chain; a restart of `serve` leaves it some 30 blocks to catch up. */
const BLOCK_TIME_MS = 200;

export async function runSoak(opts: SoakOptions): Promise<SoakSummary> {
  const log = opts.log ?? (() => undefined);
  const started = Date.now();
  const dir = opts.keepDir ?? mkdtempSync(path.join(tmpdir(), 'paygate-soak-'));
  mkdirSync(dir, { recursive: true });
  const receiver = new WebhookReceiver();
  await receiver.start();
  const world = await buildWorld(dir, seededRng(opts.seed), receiver, BLOCK_TIME_MS, opts.databaseUrl);
  const serve = new ServeProcess(world.env, path.join(dir, 'serve.log'));
  try {
    await serve.start();
    log(`serve up at ${serve.url}; soaking for ${opts.durationMs / 1000} s with seed ${opts.seed}`);
    const api = new SoakApi(serve);
    const traffic = newTrafficLog();
    const chaos = newChaosLog();
    const endAt = Date.now() + opts.durationMs;
    const running = () => Date.now() < endAt;
    const tctx = { world, api, log: traffic, running };
    const cctx = { world, serve, log: chaos, running };
    const watched = () => new Set(traffic.payments.map((p) => p.txid));
    const stream = (k: number) => seededRng(opts.seed * 1000 + k);
    const lags: number[] = [];
    const progress = setInterval(
      () => log(`${progressLine(traffic, chaos, api)}, watcher lag ${lags[lags.length - 1] ?? '?'} blocks`),
      15_000,
    );
    const lagSampler = sampleLag(world, lags);
    await Promise.all([
      invoiceLoop(tctx, stream(1)),
      addressLoop(tctx, stream(2)),
      payoutLoop(tctx, stream(3)),
      readLoop(tctx, stream(4)),
      faultLoop(cctx, stream(5), opts.durationMs),
      forkLoop(cctx, stream(6), watched),
      restartLoop(cctx, stream(7), opts.restartGapMs ?? Math.min(30_000, Math.max(4_000, opts.durationMs / 8))),
    ]);
    clearInterval(progress);
    clearInterval(lagSampler);
    log(`load over: ${progressLine(traffic, chaos, api)}; settling`);
    const settleStart = Date.now();
    const hitFaults = countHitFaults(world, chaos);
    world.devnet.control.clearFaults();
    const unsettled = await settle(world, serve, chaos, log);
    const settle_s = (Date.now() - settleStart) / 1000;
    const exit = await serve.stop('SIGTERM');
    if (exit && exit.code !== 0) chaos.badStops.push(`final SIGTERM ended serve with code ${exit.code}`);
    const facts = collectFacts(world.devnet, world, traffic.payments, receiver.received, receiver.refused);
    writeFileSync(path.join(dir, 'facts.json'), JSON.stringify(facts));
    const violations: Record<string, string[]> = {
      ...(await allProblems(world.database.db, facts)),
      serve: [...api.serverErrors, ...api.unanswered, ...serve.crashes, ...chaos.badStops],
      settle: unsettled ? [unsettled] : [],
    };
    const summary = await summarise(world, {
      opts,
      started,
      settle_s,
      traffic,
      chaos,
      api,
      serve,
      facts,
      violations,
      hitFaults,
      lags,
    });
    return summary;
  } finally {
    await serve.stop('SIGKILL');
    serve.close();
    await receiver.close();
    await world.database.close();
    await world.devnet.close();
    if (!opts.keepDir) rmSync(dir, { recursive: true, force: true });
  }
}

function progressLine(t: TrafficLog, c: ChaosLog, api: SoakApi): string {
  const forks = Object.values(c.forks).reduce((a, b) => a + b, 0);
  const faults = Object.values(c.faults).reduce((a, b) => a + b, 0);
  return `invoices ${t.invoices.length}, payments ${t.payments.length}, payouts ${t.payouts.length}, api ${api.requests} (${api.serverErrors.length} 5xx), forks ${forks}, faults ${faults}, SIGTERM ${c.restarts.SIGTERM}, SIGKILL ${c.restarts.SIGKILL}`;
}

/** Faults added that answered at least one request (the ones still live with no hit never fired). */
function countHitFaults(world: SoakWorld, chaos: ChaosLog): number {
  const unfired = new Set(
    world.devnet.control
      .faults()
      .filter((f) => f.hits === 0)
      .map((f) => f.id),
  );
  return chaos.faultIds.filter((id) => !unfired.has(id)).length;
}

/**
 * Faults are off; blocks keep coming (the devnet's own block time). Done when the watcher has
 * scanned past the solid height of the last payment, every payout is final and every webhook
 * delivery is done, twice in a row. `serve` is restarted if it is not running.
 */
async function settle(
  world: SoakWorld,
  serve: ServeProcess,
  chaos: ChaosLog,
  log: (line: string) => void,
): Promise<string | null> {
  const db = world.database.db;
  if (!serve.running) await restart({ world, serve, log: chaos, running: () => false }, 'SIGKILL');
  const target = world.devnet.control.info().head.number + SOLID_LAG + 2;
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let calm = 0;
  let state = '';
  let lastLog = Date.now();
  while (calm < 2) {
    if (Date.now() - lastLog > 5_000) {
      log(`settling: ${state}`);
      lastLog = Date.now();
    }
    if (Date.now() > deadline) return `not settled ${SETTLE_TIMEOUT_MS / 1000} s after the load: ${state}`;
    await sleep(500);
    const cursor = await readCursor(db);
    const openPayouts = await db
      .selectFrom('payouts')
      .select('id')
      .where('status', 'not in', ['confirmed', 'failed', 'rejected'])
      .execute();
    const pending = await db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute();
    const unfinal = await db
      .selectFrom('deposits')
      .select('id')
      .where('status', '!=', 'orphaned')
      .where((eb) => eb.or([eb('final', '=', 0), eb('credited_at', 'is', null)]))
      .execute();
    const done =
      (cursor?.next_block ?? 0) > target && openPayouts.length === 0 && pending.length === 0 && unfinal.length === 0;
    calm = done ? calm + 1 : 0;
    state = `watcher at ${cursor?.next_block ?? 'none'} (target ${target}), ${openPayouts.length} open payouts, ${pending.length} pending deliveries, ${unfinal.length} deposits not final or not credited`;
  }
  return null;
}

interface Parts {
  opts: SoakOptions;
  started: number;
  settle_s: number;
  traffic: TrafficLog;
  chaos: ChaosLog;
  api: SoakApi;
  serve: ServeProcess;
  facts: ReturnType<typeof collectFacts>;
  violations: Record<string, string[]>;
  hitFaults: number;
  lags: number[];
}

function quantiles(xs: number[]): { median: number; p95: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { median: at(0.5), p95: at(0.95), max: s[s.length - 1] ?? 0 };
}

/** Every second: how far the watcher's cursor is behind the devnet's head. */
function sampleLag(world: SoakWorld, lags: number[]): NodeJS.Timeout {
  return setInterval(() => {
    void readCursor(world.database.db).then((c) => {
      if (c) lags.push(world.devnet.control.info().head.number - c.next_block + 1);
    });
  }, 1_000);
}

async function summarise(world: SoakWorld, p: Parts): Promise<SoakSummary> {
  const db = world.database.db;
  const count = async (table: 'invoices' | 'deposits' | 'payouts' | 'webhook_deliveries') => {
    const rows = await db.selectFrom(table).select(['status']).execute();
    const out: Record<string, number> = {};
    for (const r of rows) out[r.status] = (out[r.status] ?? 0) + 1;
    return out;
  };
  const onChain = new Set(p.facts.transfers.filter((t) => t.success).map((t) => t.txid));
  const byMode: Record<string, number> = {};
  const byDepth: Record<string, number> = {};
  for (const [key, n] of Object.entries(p.chaos.forks)) {
    const [mode, depth] = key.split(':') as [string, string];
    byMode[mode] = (byMode[mode] ?? 0) + n;
    byDepth[depth] = (byDepth[depth] ?? 0) + n;
  }
  const events = await db.selectFrom('events').select('id').execute();
  const credited = await db.selectFrom('deposits').select('id').where('credited_at', 'is not', null).execute();
  const onChainPayments = p.traffic.payments.filter((x) => onChain.has(x.txid)).length;
  const violated = Object.values(p.violations).some((v) => v.length > 0);
  return {
    seed: p.opts.seed,
    duration_s: p.opts.durationMs / 1000,
    wall_s: Math.round((Date.now() - p.started) / 100) / 10,
    settle_s: Math.round(p.settle_s * 10) / 10,
    invoices: { created: p.traffic.invoices.length, by_status: await count('invoices') },
    permanent_address_requests: p.traffic.permanentAddresses,
    payments: {
      made: p.traffic.payments.length,
      on_chain: onChainPayments,
      dropped_by_forks: p.traffic.payments.length - onChainPayments,
    },
    deposits: { by_status: await count('deposits'), credited: credited.length },
    forks: {
      total: Object.values(byMode).reduce((a, b) => a + b, 0),
      by_mode: byMode,
      by_depth: byDepth,
      past_confirmation: p.chaos.forksPastConfirmation,
      below_watcher: p.chaos.forksBelowWatcher,
      cut_deposits: p.chaos.forkedDeposits,
      payments_dropped: p.chaos.forkedTxs.dropped,
      payments_reincluded: p.chaos.forkedTxs.reincluded,
      payouts_dropped: p.chaos.forkedPayouts.dropped,
      payouts_reincluded: p.chaos.forkedPayouts.reincluded,
    },
    faults: { by_kind: p.chaos.faults, hit: p.hitFaults },
    restarts: { ...p.chaos.restarts, down_s: Math.round(p.chaos.downMs / 100) / 10, starts: p.serve.starts },
    payouts: {
      requested: p.traffic.payouts.length,
      answers: p.traffic.payoutRequests,
      by_status: await count('payouts'),
      operator: p.traffic.operator,
    },
    webhooks: {
      events: events.length,
      received: p.facts.received.length,
      distinct: new Set(p.facts.received.map((r) => r.eventId)).size,
      deliveries: await count('webhook_deliveries'),
    },
    api: {
      requests: p.api.requests,
      by_status: p.api.statuses,
      no_answer: p.api.down,
      unanswered: p.api.unanswered.length,
    },
    watcher_lag_blocks: quantiles(p.lags),
    violations: p.violations,
    ok: !violated,
  };
}
