/**
 * The V8 heap limit `paygate serve` is started with: `node --max-old-space-size=1024` in the
 * Dockerfile, deploy/paygate.service, `npm start` (the demo) and .ci/run (test/deploy/heap.test.ts
 * keeps them in step). Node cannot change it once running, so only the launcher can give it.
 *
 * Not for the limit itself: the live heap is ~40 MB on a million invoices. V8 derives from the
 * limit how far the old generation may grow past what the last full GC kept before it collects
 * again: up to 4× at Node's default limit on a large machine (a quarter of its memory, capped),
 * under 2× at 1 GiB. So the limit keeps garbage not yet collected from swelling serve's RSS under
 * load (figures in docs/adr/0035-heap-limit-for-serve.md). On a machine or container with less
 * than ~5 GB, Node's default is already at or below this limit.
 */
import v8 from 'node:v8';

const HEAP_LIMIT_MB = 1024;
export const SERVE_NODE_FLAGS = [`--max-old-space-size=${HEAP_LIMIT_MB}`] as const;

/** Node accepts the flag with dashes or underscores, on the command line or in NODE_OPTIONS. */
const HEAP_FLAG = /(^|\s)--max[-_]old[-_]space[-_]size(=|\s|$)/;

/**
 * The heap limit this process runs with (MB) when it was started without any old-space limit
 * (through npm's `paygate` link, say); undefined when the launcher gave one, ours or the operator's.
 */
export function heapLimitNotSet(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): number | undefined {
  if (execArgv.some((a) => HEAP_FLAG.test(a)) || HEAP_FLAG.test(nodeOptions)) return undefined;
  return Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20);
}
