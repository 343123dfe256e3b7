/**
 * WAL checkpoints on a worker thread. better-sqlite3 is synchronous: with SQLite's automatic
 * checkpoints, every thousandth page a request's COMMIT copies the WAL into the database file and
 * fsyncs it on the event loop, stalling every request for tens or hundreds of milliseconds. The
 * server turns automatic checkpoints off on its connection and this worker, with a connection of
 * its own, runs PASSIVE checkpoints (they never block writers or readers) every `intervalMs`
 * (CHECKPOINT_INTERVAL_MS).
 *
 * A PASSIVE checkpoint never lets the WAL start over: SQLite rewinds it only when a write begins
 * with every frame copied and no reader inside it, which a steady stream of commits and reads
 * never leaves. Measured: 1.2 GB of WAL after 14 s of creations at 4,400/s. Past `restartFrames`
 * frames the worker tries a RESTART checkpoint a few times a second until one finds no write
 * transaction and no reader in flight: it copies the last frames and the next write starts the WAL
 * over; the writer's journal_size_limit then truncates the file (database.ts). A try never waits
 * for a lock.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// CommonJS source evaluated in the worker, so it runs the same from the sources and from dist/.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
// Never waits for a lock: a checkpoint that finds the writer or a reader busy tries again later.
const db = new Database(workerData.file, { timeout: 0 });
db.pragma('synchronous = FULL');
// No cache_size: a checkpoint copies WAL frames into the database file one page at a time through
// a buffer of its own, never through this connection's page cache, which stays empty.
let restarting = null;
const frames = (mode) => {
  try { return db.pragma('wal_checkpoint(' + mode + ')')[0].log; } catch { return -1; /* busy or locked */ }
};
// Done when a RESTART found no reader left in the WAL (busy 0): the next write starts it over.
const restart = () => {
  try {
    if (db.pragma('wal_checkpoint(RESTART)')[0].busy !== 0) return;
  } catch { return; /* busy or locked: the next try */ }
  clearInterval(restarting);
  restarting = null;
};
let tries = 0;
const checkpoint = () => {
  if (restarting || frames('PASSIVE') <= workerData.restartFrames) {
    // A reader that never leaves the WAL (a shell left in a transaction) defeats every try: after
    // a minute of them, one try a tick.
    // (A try that gets the write lock holds it through an fsync: at most one a second then.)
    if (restarting && ++tries % Math.max(1, Math.round(60000 / workerData.intervalMs)) === 0) { clearInterval(restarting); restarting = setInterval(restart, Math.max(1000, workerData.intervalMs)); }
    return;
  }
  tries = 0;
  // Only between two write transactions, with no reader in the WAL, can it start over: look for
  // that moment a few times a second, each try giving up at once rather than waiting for a lock.
  restarting = setInterval(restart, workerData.restartTryMs);
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  clearInterval(restarting);
  frames('PASSIVE');
  db.close();
  parentPort.postMessage('stopped');
});
parentPort.postMessage('ready');
`;

export interface Checkpointer {
  /** The worker thread now running (a test ends it to see a new one take over). */
  readonly worker: Worker;
  stop(): Promise<void>;
}

/** WAL frames (4 KiB pages) past which a RESTART checkpoint lets the WAL start over: 64 MiB. */
export const RESTART_FRAMES = 16_384;
/**
 * How often, once past RESTART_FRAMES, the worker looks for a moment to let the WAL start over. A
 * try that gets the write lock keeps it through its checkpoint's fsync, even when it then finds a
 * reader: every 5 ms, that held writes up often enough to take creations' p99 from 15 to 34 ms.
 */
const RESTART_TRY_MS = 50;

export interface RestartPolicy {
  /** WAL frames past which the worker looks for a moment to let the WAL start over. */
  frames: number;
  /** How often it looks, until one try finds the moment. */
  tryMs: number;
}

/**
 * How often the worker runs a PASSIVE checkpoint. Each one copies what was committed since the
 * last and fsyncs the database file; at 4,000 creations a second a second's worth is ~20 MB, and a
 * COMMIT's WAL fsync on the event loop queued behind that flush for 10-20 ms. In quarters of a
 * second, at 80 % of the creation peak with reads alongside, creations' p99 fell from 25-61 ms
 * (median 46) to 21-48 ms (median 24) over six rounds each (decisions.md).
 */
export const CHECKPOINT_INTERVAL_MS = 250;

/** What happens when the worker dies on its own (it never has; the WAL would grow without it). */
export interface Supervision {
  /** Told why, each time; serve logs it as an error. */
  onCrash?: (reason: string) => void;
  /** A new worker starts this long after a crash (default 1 s), doubling up to a minute. */
  respawnMs?: number;
}

/** Starts a checkpoint worker; resolves once it has opened the database. */
async function startWorker(workerData: object): Promise<Worker> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData, resourceLimits: { maxYoungGenerationSizeMb: 2 } });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return worker;
}

export async function startCheckpointer(
  file: string,
  intervalMs = CHECKPOINT_INTERVAL_MS,
  restart: RestartPolicy = { frames: RESTART_FRAMES, tryMs: RESTART_TRY_MS },
  supervision: Supervision = {},
): Promise<Checkpointer> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const workerData = { file, driver, intervalMs, restartFrames: restart.frames, restartTryMs: restart.tryMs };
  let worker = await startWorker(workerData);
  let stopped: Promise<void> | null = null;
  let exited = false;
  const firstPause = supervision.respawnMs ?? 1_000;
  let pause = firstPause;

  // The server's own connection never checkpoints: without this worker the WAL would grow until
  // the disk is full. A worker that dies on its own is replaced, and each death is reported.
  const respawn = (reason: string) => {
    supervision.onCrash?.(reason);
    const timer = setTimeout(() => {
      if (stopped) return;
      startWorker(workerData).then(
        (next) => {
          if (stopped) return void next.terminate();
          worker = next;
          exited = false;
          pause = firstPause;
          watch(next);
        },
        (e: unknown) => respawn(`checkpoint worker failed to start: ${String(e)}`),
      );
    }, pause);
    timer.unref();
    pause = Math.min(pause * 2, 60_000);
  };

  const watch = (w: Worker) => {
    let failure = '';
    w.on('error', (e) => (failure = `: ${String(e)}`));
    w.once('exit', (code) => {
      exited = true;
      if (!stopped) respawn(`checkpoint worker exited with code ${code}${failure}`);
    });
  };
  watch(worker);

  return {
    get worker() {
      return worker;
    },
    stop() {
      // A worker that already ended (it crashed; its replacement is not up yet) answers nothing:
      // stopping it is done, and no replacement starts.
      stopped ??= exited
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const w = worker;
            // Resolved by the worker's own 'stopped', after its last PASSIVE checkpoint.
            w.on('message', (m) => {
              if (m === 'stopped') void w.terminate().then(() => resolve());
            });
            w.once('error', () => resolve());
            w.once('exit', () => resolve());
            w.postMessage('stop');
          });
      return stopped;
    },
  };
}
