/**
 * Reading block ranges from the node for the chain watcher: a range of blocks with the infos of
 * those that hold contract calls, checked to be complete (a node's incomplete answer throws, and
 * the range is asked for again), and the ranges fetched ahead of the cursor while it is behind.
 */
import pLimit from 'p-limit';
import type { ScanBlock, ScanInfos, TronClient } from '../chain/client.js';
import { needsInfos } from './chain-match.js';

export interface Fetched {
  blocks: ScanBlock[];
  /** The infos of the blocks with contract calls; their logs are built only when read. */
  infos: Map<number, ScanInfos>;
  /**
   * The solid height known before these blocks were fetched. Below it the node could only send
   * the blocks no fork can replace; above it they may be a fork's, however high the solid height
   * is when they are committed (a prefetched range may wait through a node outage).
   */
  solid: number;
  /** The head known then: confirmations count only blocks seen on top of these (same reason). */
  head: number;
  /** The account whose acts the blocks carry (the hot wallet's `41…` hex when fetched), or null. */
  owner: string | null;
}

/** What fetching ranges takes: the node, and how much of it is asked for at once. */
export interface RangeSource {
  chain: TronClient;
  /** Blocks per range request. */
  batch: number;
  /** Transaction-info requests in flight at once. */
  infoConcurrency: number;
  /** Ranges fetched ahead of the cursor at most. */
  prefetchDepth: number;
  /** The hot wallet's `41…` hex: every transaction it owns is kept (ScanBlock.acts); null before it exists. */
  owner: string | null;
}

/** A range being fetched ahead of the cursor: blocks [from, to). */
export interface PrefetchedRange {
  from: number;
  to: number;
  promise: Promise<Fetched>;
}

/** The longest run of blocks from the first that link parent to child. */
export function contiguous(blocks: ScanBlock[]): ScanBlock[] {
  let n = 1;
  while (
    n < blocks.length &&
    blocks[n]?.parentHash === blocks[n - 1]?.id &&
    blocks[n]?.number === (blocks[n - 1]?.number ?? 0) + 1
  )
    n++;
  return blocks.slice(0, n);
}

/** Blocks [from, to) and the Transfer logs of those that hold a successful contract call or creation. */
export async function fetchRange(
  src: RangeSource,
  from: number,
  to: number,
  solid: number,
  head: number,
): Promise<Fetched> {
  const owner = src.owner;
  const blocks = await src.chain.getScanBlocks(from, to, { owner });
  // A field the node left out is a failed answer, never a transfer to skip (it may be a deposit).
  const unsure = blocks.find((b) => b.unsure.length > 0);
  if (unsure)
    throw new Error(
      `node answered block ${unsure.number} with transaction ${unsure.unsure[0] || '(no txID)'} incomplete (its result, receiver, amount or id left out); asking again`,
    );
  const infosOf = new Map<number, ScanInfos>();
  await pLimit(src.infoConcurrency).map(blocks.filter(needsInfos), async (b) => {
    const infos = await src.chain.getScanTransferLogs(b.number);
    // A node that leaves a call's info out (lagging behind a load balancer, history turned off)
    // would make its token transfers look absent: the range is asked for again, never skipped.
    const answered = new Set(infos.ids);
    const missing = b.calls.find((id) => !answered.has(id));
    if (missing !== undefined)
      throw new Error(`node answered the infos of block ${b.number} without transaction ${missing}; asking again`);
    const elsewhere = infos.logs.find((l) => l.blockNumber !== b.number);
    if (elsewhere)
      throw new Error(
        `node answered the infos of block ${b.number} with a log of transaction ${elsewhere.txID} from block ${elsewhere.blockNumber || '(none)'}; asking again`,
      );
    const stateless = infos.unsure.find((id) => b.calls.includes(id));
    if (stateless !== undefined)
      throw new Error(
        `node answered the info of transaction ${stateless} in block ${b.number} without its receipt's result; asking again`,
      );
    infosOf.set(b.number, infos);
  });
  return { blocks, infos: infosOf, solid, head, owner };
}

/** Keeps up to prefetchDepth consecutive ranges from `from` (up to `head`) in flight in `prefetched`. */
export function fillPrefetch(
  src: RangeSource,
  prefetched: PrefetchedRange[],
  from: number,
  head: number,
  solid: number,
): void {
  if (prefetched[0] && prefetched[0].from !== from) prefetched.length = 0;
  let next = prefetched.at(-1)?.to ?? from;
  while (prefetched.length < src.prefetchDepth && next <= head) {
    const to = Math.min(head + 1, next + src.batch);
    const promise = fetchRange(src, next, to, solid, head);
    // A failed prefetch is dropped: the next tick fetches again (and meets the error itself).
    promise.catch(() => undefined);
    prefetched.push({ from: next, to, promise });
    next = to;
  }
}

/**
 * The range fetched ahead that starts at `from`, else null (and nothing fetched ahead is kept).
 * One fetched for another hot wallet than `owner` is dropped too: its blocks lack the acts of this one.
 */
export async function takePrefetch(
  prefetched: PrefetchedRange[],
  from: number,
  owner: string | null = null,
): Promise<Fetched | null> {
  const p = prefetched.shift();
  if (!p || p.from !== from) {
    prefetched.length = 0;
    return null;
  }
  try {
    const fetched = await p.promise;
    if (fetched.owner === owner) return fetched;
    prefetched.length = 0;
    return null;
  } catch {
    prefetched.length = 0; // the ranges after a failed one start where it should have ended
    return null;
  }
}
