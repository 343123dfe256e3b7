/**
 * The node's large answers read on a worker thread. A range of 100 mainnet blocks is about 35 MB
 * of JSON: parsed on the main thread it would stop every API request for about half a second,
 * each time, while the watcher catches up. The worker reads the bytes in place, building only the
 * fields the reductions read (project-json.ts), and reduces them (prune.ts); what it refuses it
 * parses the usual way (TextDecoder + JSON.parse), for the usual value or error. The main thread
 * receives only what the watcher reads. The response body moves to the worker without a copy (a
 * transferred ArrayBuffer). Like derive-worker.ts, the source is plain JavaScript evaluated in the
 * worker (the functions' own text), so it runs the same under tsx, vitest and the built dist/.
 */
import { Worker } from 'node:worker_threads';
import { answerMemory } from './answer-memory.js';
import { infoOutcome } from './parse.js';
import { JsonReader, projectJson } from './project-json.js';
import { eachBlock, packScanBlock, packTransferLogs, rangeBytes, scanBlock, scanBlockRange, scanBlockRangeBytes, scanTransferLogs, scanTransferLogsBytes, txIdsOfBlock, txIdsOfRange, txIdsOfRangeBytes } from './prune.js';
import { TRANSFER_TOPIC } from './trc20.js';
import { prefixOfHex } from '../workers/address-prefixes.js';

export type PruneKind = 'blockRange' | 'transferLogs' | 'blockTxIds';

const SOURCE = `
const { parentPort } = require('node:worker_threads');
// Bundlers and tsx may wrap functions in __name(…) to keep their names; nothing to keep here.
var __name = (f) => f;
${[projectJson, JsonReader, scanBlock, scanBlockRange, scanBlockRangeBytes, rangeBytes, txIdsOfBlock, txIdsOfRange, txIdsOfRangeBytes, scanTransferLogs, scanTransferLogsBytes, infoOutcome, eachBlock, packScanBlock, packTransferLogs, prefixOfHex].map((f) => f.toString()).join('\n')}
const fromBytes = { blockRange: (bytes) => scanBlockRangeBytes(bytes, projectJson), blockTxIds: (bytes) => txIdsOfRangeBytes(bytes, projectJson), transferLogs: (bytes) => scanTransferLogsBytes(bytes, projectJson, '${TRANSFER_TOPIC}', infoOutcome) };
const prune = { blockRange: scanBlockRange, blockTxIds: txIdsOfRange, transferLogs: (json) => scanTransferLogs(json, '${TRANSFER_TOPIC}', infoOutcome) };
/** What crosses to the main thread: the watcher's reads packed (prune.ts). */
const pack = { blockRange: (v) => eachBlock(v, (b) => packScanBlock(b, prefixOfHex)), blockTxIds: (v) => v, transferLogs: (v) => packTransferLogs(v, prefixOfHex) };
const decoder = new TextDecoder();
/** The answer parsed the usual way, for what the bytes' reader refused (an error, an empty answer). */
function parsed(kind, body) {
  let text = '';
  try {
    text = decoder.decode(body);
    return { value: pack[kind](prune[kind](text.trim() === '' ? {} : JSON.parse(text))), parsed: true };
  } catch (e) {
    return { error: String(e && e.message), preview: text.slice(0, 200), parsed: true };
  }
}
parentPort.on('message', ({ id, kind, body }) => {
  let reply;
  try {
    reply = { value: pack[kind](fromBytes[kind](body)) };
  } catch {
    reply = parsed(kind, body);
  }
  // Read, the bytes are not needed: the buffer goes back with the answer to be reused
  // (answer-memory.ts).
  const spare = body.buffer;
  parentPort.postMessage({ id, ...reply, spare }, [spare]);
});
`;

/** The worker could not read the answer as JSON; `preview` is its start, for the error message. */
export class UnparsableAnswer extends Error {
  constructor(message: string, readonly preview: string) {
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
   * Answers the bytes' reader refused and JSON.parse read instead (broken answers, an empty one):
   * a test's guard that well-formed answers take the fast path in the worker's evaluated text.
   */
  parsedTheUsualWay = 0;

  /**
   * The answer `body` parsed and pruned for `kind`; rejects with UnparsableAnswer for non-JSON.
   * The body's buffer moves to the worker, so it must hold nothing else (http-body.ts gives every
   * answer a buffer of its own), and comes back to answerMemory once decoded.
   */
  parse(kind: PruneKind, body: Uint8Array): Promise<unknown> {
    if (this.closed) return Promise.reject(new ParserClosed());
    const { thread, waiting } = this.started();
    return new Promise((resolve, reject) => {
      const id = this.next++;
      waiting.set(id, { resolve, reject });
      thread.postMessage({ id, kind, body }, [body.buffer as ArrayBuffer]);
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
    const thread = new Worker(SOURCE, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 16 } });
    thread.unref();
    const waiting = new Map<number, Waiting>();
    thread.on('message', (m: { id: number; value?: unknown; error?: string; preview?: string; spare?: ArrayBuffer; parsed?: boolean }) => {
      if (m.spare) answerMemory.give(m.spare);
      if (m.parsed) this.parsedTheUsualWay++;
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
