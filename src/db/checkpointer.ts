/**
 * WAL checkpoints on a worker thread. better-sqlite3 is synchronous: with SQLite's automatic
 * checkpoints, every thousandth page a request's COMMIT copies the WAL into the database file and
 * fsyncs it on the event loop, stalling every request for tens or hundreds of milliseconds. The
 * server turns automatic checkpoints off on its connection and this worker, with a connection of
 * its own, runs PASSIVE checkpoints (they never block writers or readers) every `intervalMs`.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// CommonJS source evaluated in the worker, so it runs the same from the sources and from dist/.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
db.pragma('synchronous = FULL');
const checkpoint = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or locked: the next tick retries */ }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.postMessage('stopped');
});
parentPort.postMessage('ready');
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export async function startCheckpointer(file: string, intervalMs = 1000): Promise<Checkpointer> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs }, resourceLimits: { maxYoungGenerationSizeMb: 2 } });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  let stopped: Promise<void> | null = null;
  let exited = false;
  worker.once('exit', () => (exited = true));
  return {
    stop() {
      // A worker that already ended (it crashed) answers nothing: stopping it is done.
      stopped ??= exited
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            worker.once('message', () => void worker.terminate().then(() => resolve()));
            worker.once('error', () => resolve());
            worker.once('exit', () => resolve());
            worker.postMessage('stop');
          });
      return stopped;
    },
  };
}
