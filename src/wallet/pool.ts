/**
 * Keeps deposit addresses derived ahead of the index counter, so creating an invoice costs a map
 * lookup instead of an elliptic-curve multiplication (about 0.5 ms on a small machine). Refills run
 * in small chunks between event-loop turns when the pool drops below half. Correctness never depends
 * on the pool: a miss derives synchronously, and the index always comes from the database.
 */
import { INDEX_SPACE, type DepositKeyChain } from './hd.js';

export interface PoolOptions {
  /** How many addresses to keep derived beyond the next index. */
  ahead?: number;
  /** Addresses derived per event-loop turn while refilling. */
  chunk?: number;
  /** Never derive at or past this index (the allocator's limit). */
  limit?: number;
}

export class DepositAddressPool {
  private readonly ready = new Map<number, string>();
  private readonly ahead: number;
  private readonly chunk: number;
  private readonly limit: number;
  /** Lowest index still wanted (the database's next index as last seen). */
  private floor = 0;
  /** Next index the refill would derive. */
  private cursor = 0;
  private refilling = false;
  private stopped = false;
  hits = 0;
  misses = 0;

  constructor(private readonly chain: DepositKeyChain, opts: PoolOptions = {}) {
    this.ahead = opts.ahead ?? 512;
    this.chunk = opts.chunk ?? 16;
    this.limit = opts.limit ?? INDEX_SPACE;
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
    this.floor = nextIndex;
    for (const i of this.ready.keys()) if (i < nextIndex) this.ready.delete(i);
    if (this.ready.size < this.ahead / 2) this.scheduleRefill();
  }

  /** Derives until full, yielding between chunks; resolves when the pool is full. */
  async fill(): Promise<void> {
    while (!this.stopped && this.deriveChunk()) await new Promise<void>((r) => setImmediate(r));
  }

  get size(): number {
    return this.ready.size;
  }

  stop(): void {
    this.stopped = true;
  }

  private scheduleRefill(): void {
    if (this.refilling || this.stopped) return;
    this.refilling = true;
    void this.fill().finally(() => (this.refilling = false));
  }

  /** Derives up to one chunk of missing indexes; false when the pool is full. */
  private deriveChunk(): boolean {
    if (this.cursor < this.floor) this.cursor = this.floor;
    let done = 0;
    const end = Math.min(this.floor + this.ahead, this.limit);
    while (done < this.chunk && this.cursor < end) {
      if (!this.ready.has(this.cursor)) {
        this.ready.set(this.cursor, this.chain.addressAt(this.cursor));
        done++;
      }
      this.cursor++;
    }
    return done > 0;
  }
}
