/**
 * Keeps deposit addresses derived ahead of the index counter on a worker thread, so that creating
 * an invoice costs a map lookup instead of a BIP32 derivation on the event loop (about a
 * millisecond of CPU each). The worker (derive-thread.ts) runs the main thread's own derivation
 * (DepositKeyChain) on the account xpub; the main thread refuses a batch for other indexes and
 * re-derives one random address of each batch, so a worker that answers wrongly is dropped
 * instead of handing out an address the seed does not control.
 * Correctness never depends on the pool: the index always comes from the database, and an
 * address that is not ready is derived on the spot.
 */
import { randomInt } from 'node:crypto';
import { startThread } from '../runtime/threads.js';
import { INDEX_SPACE, type DepositKeyChain } from './hd.js';

export interface PoolOptions {
  /** How many addresses to keep derived beyond the next index. */
  ahead?: number;
  /** Addresses per worker request. */
  batch?: number;
  /**
   * The pool refills (up to `ahead`) once no more than this many are ready (default: `ahead`
   * less one batch). `serve` refills at half, so a burst of creations meets no derivation beside
   * it, and derivation runs after the burst.
   */
  lowWater?: number;
  /** Derive on a worker thread (default true); without one every address is derived on demand. */
  worker?: boolean;
  /** Never derive at or past this index (the allocator's limit). */
  limit?: number;
  /** A batch deriver to use instead of the worker thread (tests: one that lies, dies or hangs). */
  deriver?: BatchDeriver;
  /** How long the worker may take over one batch before it is dropped (default 10 s). */
  workerTimeoutMs?: number;
  /** Told why the derivation worker was dropped (the pool goes on deriving on demand). */
  onWorkerFailure?: (reason: string) => void;
}

/**
 * How far `serve` derives ahead: a burst of creations meets ready addresses for this many
 * creations beyond what the worker derives meanwhile; creation sustained past that is bounded by
 * the worker's derivation rate.
 */
export const SERVE_POOL_AHEAD = 16384;

/** Addresses per worker request in `serve`. */
export const SERVE_POOL_BATCH = 256;

/**
 * `serve` refills once half the pool is used: derivation (a core's worth while it runs) then
 * competes with requests only after a burst of 8,192 creations, not from the first one.
 */
export const SERVE_POOL_LOW_WATER = SERVE_POOL_AHEAD / 2;

/** The pool as `serve` runs it (and the benchmarks that stand for serve). */
export const SERVE_POOL: PoolOptions = {
  ahead: SERVE_POOL_AHEAD,
  batch: SERVE_POOL_BATCH,
  lowWater: SERVE_POOL_LOW_WATER,
};

/** One creation's hold on a ready address (reserve()); used up by addressAt or released. */
export interface AddressClaim {
  open: boolean;
  release(): void;
}

export interface DerivedBatch {
  from: number;
  /** The addresses of indexes from .. from+addresses.length-1. */
  addresses: string[];
}

export interface BatchDeriver {
  derive(from: number, count: number): Promise<DerivedBatch>;
  stop(): Promise<void>;
}

/** The derivation worker thread, one batch at a time. Unref'd: it never keeps the process alive. */
export function startDeriveThread(xpub: string): BatchDeriver {
  // Derivation allocates fast and briefly: by default V8 lets such a thread's young generation grow
  // to tens of megabytes, which stay resident; a small one costs no measurable speed.
  const thread = startThread(import.meta.url, 'derive-thread', {
    workerData: { xpub },
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  });
  thread.unref();
  let waiting: { resolve: (b: DerivedBatch) => void; reject: (e: Error) => void } | null = null;
  let exited: Error | null = null;
  const settle = (answer: DerivedBatch | Error) => {
    const w = waiting;
    waiting = null;
    if (answer instanceof Error) w?.reject(answer);
    else w?.resolve(answer);
  };
  thread.on('message', (m: DerivedBatch | { error: string }) => settle('error' in m ? new Error(m.error) : m));
  thread.on('error', (e) => settle(e));
  thread.on('exit', () => {
    exited = new Error('derivation worker exited');
    settle(exited);
  });
  return {
    derive(from, count) {
      if (exited) return Promise.reject(exited);
      if (waiting) return Promise.reject(new Error('the derivation worker takes one batch at a time'));
      return new Promise<DerivedBatch>((resolve, reject) => {
        waiting = { resolve, reject };
        thread.postMessage({ from, count });
      });
    },
    async stop() {
      await thread.terminate();
    },
  };
}

/** The answer of `work`, or an error once `ms` have passed without one. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  work.catch(() => {}); // after the timeout nobody awaits it
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export class DepositAddressPool {
  private readonly ready = new Map<number, string>();
  private readonly ahead: number;
  private readonly batch: number;
  private readonly lowWater: number;
  private readonly limit: number;
  private deriver: BatchDeriver | null = null;
  /** Lowest index still wanted (the database's next index as last seen). */
  private floor = 0;
  /** Next index the refill would derive. */
  private cursor = 0;
  private refilling: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Creations between reserve() and their release: each will take one ready address. */
  private reserved = 0;
  private readonly waiters: (() => void)[] = [];
  private readonly workerTimeoutMs: number;
  private readonly onWorkerFailure?: (reason: string) => void;
  hits = 0;
  misses = 0;
  workerFailure: string | null = null;

  constructor(
    private readonly chain: DepositKeyChain,
    opts: PoolOptions = {},
  ) {
    this.ahead = opts.ahead ?? 1024;
    this.batch = opts.batch ?? SERVE_POOL_BATCH;
    this.lowWater = opts.lowWater ?? this.ahead - Math.min(this.batch, this.ahead);
    this.limit = opts.limit ?? INDEX_SPACE;
    this.workerTimeoutMs = opts.workerTimeoutMs ?? 10_000;
    this.onWorkerFailure = opts.onWorkerFailure;
    if (opts.worker === false) return;
    try {
      this.deriver = opts.deriver ?? startDeriveThread(chain.xpub);
    } catch (e) {
      this.workerFailed(e);
    }
  }

  private workerFailed(e: unknown): void {
    this.workerFailure = (e as Error).message;
    this.onWorkerFailure?.(this.workerFailure);
  }

  /** The address of `index`: from the pool, or derived now. A claim it is given is used up. */
  addressAt(index: number, claim?: AddressClaim): string {
    if (claim?.open) {
      claim.open = false;
      this.reserved--;
      this.wake(); // on a miss the pool did not shrink: a waiter may go now
    }
    const ready = this.ready.get(index);
    if (ready !== undefined) {
      this.ready.delete(index);
      this.hits++;
    } else {
      this.misses++;
    }
    if (index + 1 > this.floor) this.moveFloor(index + 1);
    return ready ?? this.chain.addressAt(index);
  }

  /**
   * Waits until a ready address can be counted on for one more creation, then holds it until the
   * returned release is called. When creations outrun the worker they queue here, off the event
   * loop, instead of each deriving on it. Resolves at once when nothing more will be derived ahead
   * (no worker, index space exhausted, pool stopped): the allocation then derives on the spot or
   * fails as it would without a pool.
   */
  async reserve(): Promise<AddressClaim> {
    while (this.ready.size <= this.reserved && this.deriver && this.floor + this.reserved < this.limit) {
      // Registered before the refill starts, which may add addresses (and wake) before it returns.
      const woken = new Promise<void>((r) => this.waiters.push(r));
      void this.fill();
      await woken;
    }
    this.reserved++;
    const claim: AddressClaim = {
      open: true,
      release: () => {
        if (!claim.open) return;
        claim.open = false;
        this.reserved--;
        this.wake();
      },
    };
    return claim;
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Tells the pool where the index counter stands (at start, or after another process moved it). */
  moveFloor(nextIndex: number): void {
    const from = this.floor;
    this.floor = nextIndex;
    // Drop what fell below the floor; usually one step, so walk the range, not the whole map.
    if (nextIndex - from > this.ready.size) {
      for (const i of this.ready.keys()) if (i < nextIndex) this.ready.delete(i);
    } else {
      for (let i = from; i < nextIndex; i++) this.ready.delete(i);
    }
    // At least a whole batch at a time: each costs the main thread one derivation for its check.
    if (this.ready.size <= this.lowWater) void this.fill();
  }

  /** Derives until full; resolves when the pool is full (or stopped, or without a worker). */
  fill(): Promise<void> {
    if (this.refilling) {
      // The running refill may have seen the old floor and be about to end: go round again.
      this.again = true;
      return this.refilling;
    }
    this.refilling = this.refill().finally(() => {
      this.refilling = null;
      if (this.again && this.deriver) void this.fill();
    });
    return this.refilling;
  }

  get size(): number {
    return this.ready.size;
  }

  get usesWorker(): boolean {
    return this.deriver !== null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const d = this.deriver;
    this.deriver = null;
    this.wake();
    await d?.stop();
  }

  private async refill(): Promise<void> {
    this.again = false;
    while (this.deriver) {
      if (this.cursor < this.floor) this.cursor = this.floor;
      const count = Math.min(this.batch, Math.min(this.floor + this.ahead, this.limit) - this.cursor);
      if (count <= 0) return;
      const from = this.cursor;
      const addresses = await this.fromWorker(this.deriver, from, count);
      if (!addresses) return;
      addresses.forEach((a, i) => {
        if (from + i >= this.floor) this.ready.set(from + i, a);
      });
      this.cursor = from + count;
      this.wake();
    }
  }

  /** A batch from the worker once it passes the checks, or null (and the worker dropped). */
  private async fromWorker(deriver: BatchDeriver, from: number, count: number): Promise<string[] | null> {
    try {
      const batch = await within(deriver.derive(from, count), this.workerTimeoutMs, 'derivation worker');
      if (this.stopped) return null;
      if (batch.from !== from || batch.addresses.length !== count)
        throw new Error(
          `derivation worker answered indexes ${batch.from}+${batch.addresses.length} for ${from}+${count}`,
        );
      const i = randomInt(count);
      if (batch.addresses[i] !== this.chain.addressAt(from + i))
        throw new Error(`derivation worker disagrees with the main thread at index ${from + i}`);
      return batch.addresses;
    } catch (e) {
      if (this.stopped) return null;
      this.workerFailed(e);
      this.deriver = null;
      void deriver.stop();
      this.wake(); // waiting creations derive on the spot from now on
      return null;
    }
  }
}
