/**
 * Keeps deposit addresses derived ahead of the index counter, so creating an invoice costs a map
 * lookup instead of an elliptic-curve multiplication (about 0.5 ms on a small machine). Refills
 * run on a worker thread when one is available, else in small chunks between event-loop turns.
 * The worker checks every public key it derives with independent code before it encodes an
 * address (batch-check.ts: one randomized equation over the batch, a fraction of the cost of
 * deriving again), and the main thread re-derives one random address of each batch itself (the
 * worker cannot see a wrong parent key it was given): a bug (an index shifted inside a batch, a
 * wrong point, a wrong key) stops the worker instead of handing out an address the seed does not
 * control.
 * Correctness never depends on the pool: a miss derives synchronously, and the index always comes
 * from the database.
 */
import { INDEX_SPACE, type DepositKeyChain } from './hd.js';
import { startDeriveWorker, type BatchDeriver, type DerivedBatch } from './derive-worker.js';
import { randomInt } from 'node:crypto';

export interface PoolOptions {
  /** How many addresses to keep derived beyond the next index. */
  ahead?: number;
  /** Addresses derived per event-loop turn when refilling on the main thread. */
  chunk?: number;
  /** Addresses per worker request. */
  batch?: number;
  /** Derive on a worker thread (default true). */
  worker?: boolean;
  /** Never derive at or past this index (the allocator's limit). */
  limit?: number;
  /** A batch deriver to use instead of the worker thread (tests: one that lies). */
  deriver?: BatchDeriver;
  /** The worker's derivation function, replaced (tests: one with a bug, which its check must catch). */
  deriveSource?: string;
  /** How long the worker may take over one batch before it is dropped (default 10 s). */
  workerTimeoutMs?: number;
  /**
   * After this long without a creation, a pool that is not full tops itself up (default 1 s), so
   * every burst meets a full pool; during a burst it refills only once half empty.
   */
  idleRefillMs?: number;
  /** Told why the derivation worker was dropped (the pool goes on deriving on the main thread). */
  onWorkerFailure?: (reason: string) => void;
}

/**
 * How far `serve` derives ahead: a burst of creations then costs no derivation until the pool is
 * half empty (16,384 creations), and derivation, ~40 % of a creation's CPU when it runs alongside,
 * happens in the quiet that follows. Steady creation past that is bounded by the worker's
 * derivation rate (docs/decisions.md, "Release 3, thirteenth round"). About 3.5 MB of addresses;
 * filling it takes the worker ~6 s after start.
 */
export const SERVE_POOL_AHEAD = 32768;

/**
 * Addresses per worker request in `serve`. The check's multi-scalar multiplication and the
 * derivation's inversions cost less per address in larger batches: 142-152 µs an address at 1,024
 * against 163-180 µs at 256 (bench/addresses.ts; docs/decisions.md), and sustained creation is
 * bounded by that CPU. A batch takes ~150 ms; `serve` refills long before the pool runs out.
 */
export const SERVE_POOL_BATCH = 1024;

/** The pool as `serve` runs it (and the benchmarks that stand for serve). */
export const SERVE_POOL: PoolOptions = { ahead: SERVE_POOL_AHEAD, batch: SERVE_POOL_BATCH };

/** One creation's hold on a ready address (reserve()); used up by addressAt or released. */
export interface AddressClaim {
  open: boolean;
  release(): void;
}

/** A batch asked of the worker. */
interface Requested {
  from: number;
  count: number;
  answer: Promise<DerivedBatch>;
}

export class DepositAddressPool {
  private readonly ready = new Map<number, string>();
  private readonly ahead: number;
  private readonly chunk: number;
  private readonly batch: number;
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
  private readonly idleRefillMs: number;
  /** Armed while the pool is short of full; pushed back by every creation (moveFloor). */
  private idleRefill: NodeJS.Timeout | null = null;
  private readonly onWorkerFailure?: (reason: string) => void;
  hits = 0;
  misses = 0;
  workerFailure: string | null = null;

  constructor(private readonly chain: DepositKeyChain, opts: PoolOptions = {}) {
    this.ahead = opts.ahead ?? 1024;
    this.chunk = opts.chunk ?? 8;
    this.batch = opts.batch ?? 256;
    this.limit = opts.limit ?? INDEX_SPACE;
    this.idleRefillMs = opts.idleRefillMs ?? 1000;
    this.onWorkerFailure = opts.onWorkerFailure;
    if (opts.worker === false) return;
    try {
      this.deriver = opts.deriver ?? startDeriveWorker(chain.chainCode.toString('hex'), chain.parentCompressed.toString('hex'), opts.deriveSource, opts.workerTimeoutMs);
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
   * returned release is called. When creations outrun derivation they queue here, off the event
   * loop, instead of each deriving on it (a miss costs the main thread a full multiplication, which
   * slows the refill that would end the misses). Resolves at once when nothing more can be derived
   * (index space exhausted, pool stopped): the allocation then fails or derives as before.
   */
  async reserve(): Promise<AddressClaim> {
    while (this.ready.size <= this.reserved && !this.stopped && this.floor + this.reserved < this.limit) {
      // Registered before the refill starts: a main-thread refill may add addresses (and wake) at once.
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
    if (this.ready.size < this.ahead / 2) void this.fill();
    else if (this.ready.size < this.ahead && !this.stopped) this.topUpWhenIdle();
  }

  /**
   * Derivation costs about as much CPU as the rest of a creation: during a burst the pool waits
   * until half empty before it refills, and the quiet after the burst fills it again.
   */
  private topUpWhenIdle(): void {
    if (this.idleRefill) {
      this.idleRefill.refresh();
      return;
    }
    // stop() clears it: it never fires on a stopped pool.
    this.idleRefill = setTimeout(() => {
      this.idleRefill = null;
      void this.fill();
    }, this.idleRefillMs);
    this.idleRefill.unref();
  }

  /** Derives until full; resolves when the pool is full (or stopped). */
  fill(): Promise<void> {
    if (this.refilling) {
      // The running refill may have seen the old floor and be about to end: go round again.
      this.again = true;
      return this.refilling;
    }
    this.refilling = this.refill().finally(() => {
      this.refilling = null;
      if (this.again && !this.stopped) void this.fill();
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
    if (this.idleRefill) clearTimeout(this.idleRefill);
    this.idleRefill = null;
    this.wake();
    const d = this.deriver;
    this.deriver = null;
    await d?.stop();
  }

  private async refill(): Promise<void> {
    this.again = false;
    let next: Requested | null = null;
    while (!this.stopped) {
      if (this.cursor < this.floor) this.cursor = this.floor;
      const end = Math.min(this.floor + this.ahead, this.limit);
      if (this.cursor >= end) return;
      const from = this.cursor;
      let addresses: (string | null)[] | null = null;
      if (this.deriver) {
        const current: Requested = next?.from === from ? next : this.request(from, Math.min(this.batch, end - from));
        // The worker derives the following batch while this one is checked here.
        const following = from + current.count;
        next = following < end ? this.request(following, Math.min(this.batch, end - following)) : null;
        addresses = await this.fromWorker(current);
      }
      if (addresses) {
        addresses.forEach((a, i) => {
          if (a !== null && from + i >= this.floor) this.ready.set(from + i, a);
        });
        this.cursor = from + addresses.length;
        this.wake();
      } else {
        const stop = Math.min(from + this.chunk, end);
        for (let i = from; i < stop; i++) if (!this.ready.has(i)) this.ready.set(i, this.chain.addressAt(i));
        this.cursor = stop;
        this.wake();
        await new Promise<void>((r) => setImmediate(r));
      }
    }
  }

  private request(from: number, count: number): Requested {
    const answer = this.deriver ? this.deriver.derive(from, count) : Promise.reject(new Error('no derivation worker'));
    answer.catch(() => {}); // a request made ahead may never be awaited
    return { from, count, answer };
  }

  /** A checked batch from the worker, or null (and the worker dropped) when it misbehaves. */
  private async fromWorker({ from, count, answer }: Requested): Promise<(string | null)[] | null> {
    const deriver = this.deriver;
    if (!deriver) return null;
    try {
      const batch = await answer;
      if (batch.from !== from || batch.count !== count || batch.addresses.length !== count) throw new Error(`derivation worker answered indexes ${batch.from}+${batch.count} for ${from}+${count}`);
      // The worker checked every key; this guards what it cannot see: the parent key it was given.
      const i = randomInt(count);
      const own = this.mainThreadAddress(from + i);
      if (batch.addresses[i] !== own) throw new Error(`derivation worker disagrees with the main thread at index ${from + i}`);
      return this.stopped ? [] : batch.addresses;
    } catch (e) {
      if (this.stopped) return [];
      this.workerFailed(e);
      this.deriver = null;
      void deriver.stop();
      return null;
    }
  }

  /** The main thread's derivation; null for a BIP32-invalid index (as the worker reports it). */
  private mainThreadAddress(index: number): string | null {
    try {
      return this.chain.addressAt(index);
    } catch (e) {
      if (/BIP32 child/.test((e as Error).message)) return null;
      throw e;
    }
  }
}
