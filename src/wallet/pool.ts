/**
 * Keeps deposit addresses derived ahead of the index counter, so creating an invoice costs a map
 * lookup instead of an elliptic-curve multiplication (about 0.5 ms on a small machine). Refills
 * run on a worker thread when one is available, else in small chunks between event-loop turns.
 * Every address the worker derives is checked against the main thread's own derivation (in small
 * chunks between event-loop turns, off the request path) before it enters the pool: the two are
 * independent implementations, so a bug in either (an index shifted inside a batch, a wrong
 * encoding) stops the worker instead of handing out an address the seed does not control.
 * Correctness never depends on the pool: a miss derives synchronously, and the index always comes
 * from the database.
 */
import { INDEX_SPACE, type DepositKeyChain } from './hd.js';
import { startDeriveWorker, type BatchDeriver } from './derive-worker.js';

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
}

/**
 * How far `serve` derives ahead: a burst of creations (thousands a second) then costs no
 * derivation until the pool is half empty; steady creation is bounded by the worker's derivation
 * rate (docs/decisions.md, issue 12). About 1 MB of addresses.
 */
export const SERVE_POOL_AHEAD = 8192;

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
  private stopped = false;
  hits = 0;
  misses = 0;
  workerFailure: string | null = null;

  constructor(private readonly chain: DepositKeyChain, opts: PoolOptions = {}) {
    this.ahead = opts.ahead ?? 1024;
    this.chunk = opts.chunk ?? 8;
    this.batch = opts.batch ?? 128;
    this.limit = opts.limit ?? INDEX_SPACE;
    if (opts.deriver) this.deriver = opts.deriver;
    else if (opts.worker !== false) {
      try {
        this.deriver = startDeriveWorker(chain.chainCode.toString('hex'), chain.parentCompressed.toString('hex'));
      } catch (e) {
        this.workerFailure = (e as Error).message;
      }
    }
  }

  /** The address of `index`: from the pool, or derived now. */
  addressAt(index: number): string {
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
  }

  /** Derives until full; resolves when the pool is full (or stopped). */
  fill(): Promise<void> {
    this.refilling ??= this.refill().finally(() => (this.refilling = null));
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
    await d?.stop();
  }

  private async refill(): Promise<void> {
    while (!this.stopped) {
      if (this.cursor < this.floor) this.cursor = this.floor;
      const end = Math.min(this.floor + this.ahead, this.limit);
      if (this.cursor >= end) return;
      const from = this.cursor;
      const addresses = this.deriver ? await this.fromWorker(from, Math.min(this.batch, end - from)) : null;
      if (addresses) {
        addresses.forEach((a, i) => {
          if (a !== null && from + i >= this.floor) this.ready.set(from + i, a);
        });
        this.cursor = from + addresses.length;
      } else {
        const stop = Math.min(from + this.chunk, end);
        for (let i = from; i < stop; i++) if (!this.ready.has(i)) this.ready.set(i, this.chain.addressAt(i));
        this.cursor = stop;
        await new Promise<void>((r) => setImmediate(r));
      }
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

  /** A checked batch from the worker, or null (and the worker dropped) when it misbehaves. */
  private async fromWorker(from: number, count: number): Promise<(string | null)[] | null> {
    const deriver = this.deriver;
    if (!deriver) return null;
    try {
      const batch = await deriver.derive(from, count);
      if (batch.length !== count) throw new Error('worker derivation returned a short batch');
      for (let i = 0; i < count; i++) {
        if (batch[i] !== this.mainThreadAddress(from + i)) throw new Error(`worker derivation disagrees with the main thread at index ${from + i}`);
        // Checking costs what deriving costs: yield between chunks so requests are not held up.
        if (i % this.chunk === this.chunk - 1) await new Promise<void>((r) => setImmediate(r));
        if (this.stopped) return [];
      }
      return batch;
    } catch (e) {
      if (this.stopped) return [];
      this.workerFailure = (e as Error).message;
      this.deriver = null;
      void deriver.stop();
      return null;
    }
  }
}
