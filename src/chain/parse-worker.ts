/**
 * The node's large answers read on a worker thread (parse-thread.ts). A range of 100 mainnet blocks
 * is about 35 MB of JSON: parsed on the main thread it would stop every API request for a large
 * part of a second, each time, while the watcher catches up. The thread parses and reduces it
 * (prune.ts); the main thread receives only what the watcher reads. The response body moves to the
 * thread without a copy (a transferred ArrayBuffer).
 */
import type { Worker } from 'node:worker_threads';
import { startThread } from '../runtime/threads.js';

export type PruneKind = 'blockRange' | 'transferLogs' | 'blockTxIds';

/** The worker could not read the answer as JSON; `preview` is its start, for the error message. */
export class UnparsableAnswer extends Error {
  constructor(
    message: string,
    readonly preview: string,
  ) {
    super(message);
  }
}

/** The client was closed: nothing is parsed any more (a late prefetch must not start a new thread). */
export class ParserClosed extends Error {
  constructor() {
    super('the TRON client is closed');
  }
}

interface Waiting {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** One worker, started on first use and unref'd (it never keeps the process alive). */
export class ParseWorker {
  private worker: { thread: Worker; waiting: Map<number, Waiting> } | null = null;
  private next = 0;
  private closed = false;

  /**
   * The answer `body` parsed and pruned for `kind`; rejects with UnparsableAnswer for non-JSON.
   * The body's buffer moves to the worker, so it must hold nothing else (http.ts gives every
   * answer a buffer of its own). `arg`: what the pruning keeps besides (the hot wallet's hex for a block range).
   */
  parse(kind: PruneKind, body: Uint8Array, arg?: string): Promise<unknown> {
    if (this.closed) return Promise.reject(new ParserClosed());
    const { thread, waiting } = this.started();
    return new Promise((resolve, reject) => {
      const id = this.next++;
      waiting.set(id, { resolve, reject });
      thread.postMessage({ id, kind, body, arg }, [body.buffer as ArrayBuffer]);
    });
  }

  /** Stops for good: later parses are refused, no thread is started again. */
  async close(): Promise<void> {
    this.closed = true;
    await this.stop();
  }

  /** Stops the thread; the next parse starts a new one. */
  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.thread.terminate();
  }

  private started(): { thread: Worker; waiting: Map<number, Waiting> } {
    if (this.worker) return this.worker;
    // A small young generation: parsing allocates fast, and by default V8 lets a thread's young
    // generation grow to ~48 MB, which stays resident (16 MB: catch-up at the same blocks/s in bench/watcher.ts).
    const thread = startThread(import.meta.url, 'parse-thread', { resourceLimits: { maxYoungGenerationSizeMb: 16 } });
    thread.unref();
    const waiting = new Map<number, Waiting>();
    thread.on('message', (m: { id: number; value?: unknown; error?: string; preview?: string }) => {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new UnparsableAnswer(m.error, m.preview ?? ''));
      else w?.resolve(m.value);
    });
    // A dead worker fails what it held; the next parse starts a new one.
    const fail = (e: unknown) => {
      if (this.worker?.thread === thread) this.worker = null;
      for (const w of waiting.values()) w.reject(e);
      waiting.clear();
    };
    thread.on('error', fail);
    thread.on('exit', () => fail(new Error('parse worker exited')));
    this.worker = { thread, waiting };
    return this.worker;
  }
}
