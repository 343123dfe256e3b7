/**
 * Runs this process's background work under the worker lease (lease.ts): every `renewMs` it takes
 * or renews the lease; while held, each worker loop ticks and the scheduled jobs run; when the
 * lease is lost (another process took it after we stalled) or on stop, the loops stop at a safe
 * point (between ticks) and the jobs are destroyed.
 *
 * A worker is a loop of `tick`s. A tick does one bounded unit of work and reports whether more is
 * waiting (tick again at once) or not (sleep `intervalMs`). A tick that throws is logged and
 * retried after a backoff that grows to `maxBackoffMs`; it never crashes the process.
 *
 * The workers and the scheduled jobs get the services with the lease's fenced database
 * (`underLease`): none of their writes commits unless the lease is still this process's. A tick
 * that meets LeaseLostError ends its loop at once; the next renewal finds the lease gone and stops
 * the rest.
 */
import type { Services, WorkerServices } from '../services.js';
import { LeaseLostError, WorkerLease, type LeaseOptions } from './lease.js';
import { startScheduler, type Job, type Scheduler } from './scheduler.js';
import type { Worker } from './worker.js';

export interface WorkerHostOptions extends LeaseOptions {
  /** Lease renewal period (default 3 s; keep well under the TTL). */
  renewMs?: number;
  /** The workers to run under the lease: `serve` passes backgroundWorkers (index.ts), tests fewer. */
  workers?: (s: WorkerServices, lease: WorkerLease) => Worker[];
  /** The scheduled jobs: `serve` passes scheduledJobs (background.ts), tests fewer; none when absent. */
  jobs?: Job[] | ((s: Services) => Job[]);
  /** Longest pause after consecutive failed ticks (default 30 s). */
  maxBackoffMs?: number;
  /** How long stop() waits for running ticks to finish (default 5 s). */
  stopGraceMs?: number;
}

export interface WorkerHost {
  lease: WorkerLease;
  /** True while this process holds the lease and its workers run. */
  active(): boolean;
  /** Names of the workers this host runs while it holds the lease. */
  workers: readonly string[];
  /** Ends a worker's pause at once (e.g. the API approved a payout); no effect when not running. */
  wake(name: string): void;
  stop(): Promise<void>;
}

interface Loop {
  done: Promise<void>;
  /** True once the loop has ended (stopped, or the lease lapsed by our clock). */
  ended(): boolean;
  wake(): void;
}

const sleep = (ms: number, signal: AbortSignal, wakeups: Set<() => void>) =>
  new Promise<void>((resolve) => {
    const finish = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', finish);
      wakeups.delete(finish);
      resolve();
    };
    const t = setTimeout(finish, ms);
    signal.addEventListener('abort', finish, { once: true });
    wakeups.add(finish);
  });

/** The services as the background work gets them: the same, with every write fenced by `lease`. */
export function underLease<S extends Services>(s: S, lease: WorkerLease): S {
  return { ...s, db: lease.fenced(s.db), ...(s.scans ? { scans: lease.fenced(s.scans) } : {}) };
}

/**
 * `signer` goes to the workers only (the payout worker and the sweeper sign); the scheduled jobs
 * get the services without it.
 */
export function startWorkerHost(
  s: Services,
  opts: WorkerHostOptions & Required<Pick<WorkerHostOptions, 'workers'>>,
  signer: WorkerServices['signer'] = null,
): WorkerHost {
  const lease = new WorkerLease(s.db, s.clock, opts);
  const renewMs = opts.renewMs ?? 3_000;
  const maxBackoffMs = opts.maxBackoffMs ?? 30_000;
  const stopGraceMs = opts.stopGraceMs ?? 5_000;
  const fenced = underLease(s, lease);
  const workers = opts.workers({ ...fenced, signer }, lease);
  const log = s.logger.child({ component: 'workers', holder: lease.holder });
  let running: { abort: AbortController; loops: Map<string, Loop>; scheduler: Scheduler } | null = null;
  let stopped = false;

  const runLoop = (w: Worker, signal: AbortSignal): Loop => {
    const wakeups = new Set<() => void>();
    let ended = false;
    const done = (async () => {
      let failures = 0;
      while (!signal.aborted && lease.held()) {
        let more = false;
        try {
          more = (await w.tick(signal)) === true;
          failures = 0;
        } catch (err) {
          if (err instanceof LeaseLostError) {
            log.warn({ worker: w.name }, 'worker lease lost: this worker stops, its write was not committed');
            break;
          }
          // Failed after this process's grant lapsed by its own clock: most likely a pause, during
          // which the database ended the tick's transaction (lease.ts, idleLimitMs).
          if (!lease.held()) {
            log.warn({ err, worker: w.name }, 'worker tick failed after the worker lease lapsed (paused?); it stops');
            break;
          }
          failures++;
          log.error({ err, worker: w.name, failures }, 'worker tick failed');
        }
        if (signal.aborted) break;
        const pause =
          failures > 0 ? Math.min(maxBackoffMs, w.intervalMs * 2 ** Math.min(failures, 16)) : more ? 0 : w.intervalMs;
        if (pause > 0) await sleep(pause, signal, wakeups);
        else await new Promise((r) => setImmediate(r));
      }
    })().finally(() => {
      ended = true;
    });
    return { done, ended: () => ended, wake: () => [...wakeups].forEach((f) => f()) };
  };

  const startAll = () => {
    const abort = new AbortController();
    const loops = new Map(workers.map((w) => [w.name, runLoop(w, abort.signal)]));
    const scheduler = startScheduler(fenced, typeof opts.jobs === 'function' ? opts.jobs(fenced) : (opts.jobs ?? []));
    running = { abort, loops, scheduler };
    log.info({ workers: workers.map((w) => w.name) }, 'worker lease acquired; background work started');
  };

  const stopAll = async () => {
    const r = running;
    if (!r) return;
    running = null;
    r.abort.abort();
    // The schedule stops at once; a job run in progress is waited for like a tick (within the
    // same grace period), so the lease is not released and the database not closed under it.
    const jobsDone = r.scheduler.stop();
    // A tick ends at its next safe point; one stuck in a node call (retries, a hung node) is not
    // waited for past the grace period: every step is crash-safe, so leaving it is no worse than a
    // SIGKILL, and a shutdown must not hang on the network.
    let grace: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      Promise.all([...[...r.loops.values()].map((l) => l.done), jobsDone]).then(() => true),
      new Promise<false>((resolve) => (grace = setTimeout(() => resolve(false), stopGraceMs))),
    ]);
    clearTimeout(grace);
    if (!ended)
      log.warn(
        { graceMs: stopGraceMs },
        'a worker tick or scheduled job did not reach a safe point in time; stopping without it',
      );
  };

  const renew = async () => {
    let held = false;
    try {
      held = await lease.acquireOrRenew();
    } catch (err) {
      log.warn({ err }, 'worker lease renewal failed');
    }
    if (stopped) return;
    if (held && !running) startAll();
    if (!held && running) {
      log.warn('worker lease lost; background work stopped');
      await stopAll();
    }
    // A loop that ended because the lease lapsed locally (held() false) is restarted on renewal.
    if (held && running) {
      for (const w of workers) {
        const loop = running.loops.get(w.name);
        if (loop?.ended()) running.loops.set(w.name, runLoop(w, running.abort.signal));
      }
    }
  };

  let timer: NodeJS.Timeout | null = null;
  let renewing: Promise<void> = Promise.resolve();
  const schedule = () => {
    renewing = renew().finally(() => {
      if (!stopped) timer = setTimeout(schedule, renewMs);
    });
  };
  schedule();

  return {
    lease,
    workers: workers.map((w) => w.name),
    active: () => running !== null && lease.held(),
    wake(name) {
      running?.loops.get(name)?.wake();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      await renewing;
      await stopAll();
      try {
        await lease.release();
      } catch (err) {
        log.warn({ err }, 'worker lease release failed');
      }
    },
  };
}
