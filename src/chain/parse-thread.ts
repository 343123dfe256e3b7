/**
 * The parse worker's thread (parse-worker.ts): reads a node answer with JSON.parse and reduces it
 * to what the watcher reads (prune.ts), so that only the reduced objects cross to the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { scanBlockRange, scanTransferLogs, txIdsOfRange } from './prune.js';
import type { PruneKind } from './parse-worker.js';

const prune: Record<PruneKind, (answer: unknown, arg?: unknown) => unknown> = {
  blockRange: scanBlockRange,
  blockTxIds: txIdsOfRange,
  transferLogs: scanTransferLogs,
};
const decoder = new TextDecoder();

parentPort?.on(
  'message',
  ({ id, kind, body, arg }: { id: number; kind: PruneKind; body: Uint8Array; arg?: unknown }) => {
    let text = '';
    try {
      text = decoder.decode(body);
      parentPort?.postMessage({ id, value: prune[kind](text.trim() === '' ? {} : JSON.parse(text), arg) });
    } catch (e) {
      parentPort?.postMessage({ id, error: String((e as Error | undefined)?.message), preview: text.slice(0, 200) });
    }
  },
);
