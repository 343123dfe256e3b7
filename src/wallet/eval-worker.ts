/**
 * A worker thread running plain JavaScript source (evaluated, so it runs the same under tsx,
 * vitest and the built dist/) that answers `{ id, ...request }` with `{ id, value }` or
 * `{ id, error }`. Unref'd: it never keeps the process alive. Used by the wallet's derivation and
 * check workers.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The preamble every wallet worker shares: the curve, its hashes and the reply loop. */
export function walletWorkerSource(body: string): string {
  return `
const { parentPort, workerData } = require('node:worker_threads');
const crypto = require('node:crypto');
const { secp256k1 } = require(workerData.curves);
const { keccak_256 } = require(workerData.sha3);
// Bundlers and tsx may wrap functions in __name(…) to keep their names; nothing to keep here.
var __name = (f) => f;
const Point = secp256k1.ProjectivePoint;
const ORDER = secp256k1.CURVE.n;
${body}
parentPort.on('message', (m) => {
  try {
    parentPort.postMessage({ id: m.id, value: handle(m) });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) });
  }
});
`;
}

export interface EvalWorker {
  call<T>(request: object): Promise<T>;
  stop(): Promise<void>;
}

/**
 * A call rejects when the worker has exited (a message to an exited worker is dropped silently and
 * would never be answered) or has not answered within `timeoutMs`.
 */
export function startWalletWorker(name: string, source: string, data: object, timeoutMs = 60_000): EvalWorker {
  const require = createRequire(import.meta.url);
  const curves = require.resolve('@noble/curves/secp256k1');
  const sha3 = createRequire(curves).resolve('@noble/hashes/sha3');
  // The curve math allocates fast and briefly: by default V8 lets such a thread's young generation
  // grow to ~48 MB, which stays resident; 8 MB costs no measurable speed (bench/addresses.ts).
  const worker = new Worker(source, { eval: true, workerData: { curves, sha3, ...data }, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
  worker.unref();
  let next = 0;
  let exited: Error | null = null;
  const waiting = new Map<number, { resolve: (v: never) => void; reject: (e: unknown) => void }>();
  const failAll = (e: unknown) => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  worker.on('message', (m: { id: number; value?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.value as never);
  });
  worker.on('error', failAll);
  worker.on('exit', () => {
    exited = new Error(`${name} worker exited`);
    failAll(exited);
  });
  return {
    call<T>(request: object) {
      if (exited) return Promise.reject(exited);
      return new Promise<T>((resolve, reject) => {
        const id = next++;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`${name} worker did not answer within ${timeoutMs} ms`));
        }, timeoutMs);
        timer.unref();
        const settle =
          <A>(f: (a: A) => void) =>
          (a: A) => {
            clearTimeout(timer);
            f(a);
          };
        waiting.set(id, { resolve: settle(resolve as (v: never) => void), reject: settle(reject) });
        worker.postMessage({ ...request, id });
      });
    },
    async stop() {
      await worker.terminate();
    },
  };
}
