/**
 * The V8 heap limit `paygate serve` is started with: `node --max-old-space-size=1024` in the
 * Dockerfile, deploy/paygate.service, `npm start` and .ci/run (test/deploy/heap.test.ts keeps
 * them in step). Node cannot change it once running, so only the launcher can give it.
 *
 * Not for the limit itself: the live heap is ~40 MB on a million invoices. V8 derives from the
 * limit how far the old generation may grow past what the last full GC kept before it collects
 * again: up to 4× at the default limit (a quarter of the machine's memory), under 2× at 1 GiB. At
 * the default, serve's RSS under load on a million invoices was 245-310 MB (half the runs over
 * 250 MB, ~50 MB of it garbage not yet collected); at 1 GiB 224-238 MB (docs/decisions.md,
 * "Release 3, sixth round").
 */
import v8 from 'node:v8';

export const HEAP_LIMIT_MB = 1024;
export const SERVE_NODE_FLAGS = [`--max-old-space-size=${HEAP_LIMIT_MB}`] as const;

/**
 * The heap limit this process runs with (MB) when it is well above HEAP_LIMIT_MB, i.e. it was
 * started without SERVE_NODE_FLAGS (through the npm bin link, say); undefined otherwise. V8 adds
 * the young generation to the old one's limit, hence the margin.
 */
export function heapLimitNotSet(limitBytes = v8.getHeapStatistics().heap_size_limit): number | undefined {
  const mb = Math.round(limitBytes / 2 ** 20);
  return mb > HEAP_LIMIT_MB * 1.25 ? mb : undefined;
}
