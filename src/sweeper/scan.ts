/**
 * The sweeper's full scan of final deposits, in slices. It is the safety net behind the look at
 * recently final deposits: it finds pairs whose check failed (the node could not answer, a sweep of
 * the address was open) and deposits that turned final while `serve` was down.
 *
 * Done as one query it grew with the deposits and held the event loop throughout (18 s on 800,000
 * deposits, the API unanswered meanwhile). A slice reads at most `slice` entries of the index
 * `deposits_final_by_address` past a cursor kept in memory (about 11 ms for 2,000 on that
 * database); a tick takes a few slices, letting the event loop run between them, and a pass wraps
 * around to the first address once it reached the last.
 */
import { setImmediate as eventLoopTurn } from 'node:timers/promises';
import type { Executor } from '../db/database.js';
import { duePairsInSlice, sliceEnd, type DuePair, type ScanCursor } from './store.js';

export interface ScanOptions {
  /** Final deposits (index entries) read per slice (default 2,000). */
  slice?: number;
  /** A pass starts at most this often and is paced to end within it (default 5 minutes). */
  passMs?: number;
  /** Most slices one tick takes, whatever the pace asks (default 20). */
  maxSlicesPerTick?: number;
  /**
   * Slices per tick of the first pass after a start, whose size is unknown (default 2). Gentle on
   * purpose: a start is when the API and the watch list need the event loop,
   * and the recent look finds what turned final meanwhile; on a million deposits the first pass
   * then ends within about ten minutes, as the old full scan's period.
   */
  firstPassSlicesPerTick?: number;
}

export const SCAN_SLICE = 2_000;
const PASS_MS = 300_000;
const MAX_SLICES_PER_TICK = 20;
const FIRST_PASS_SLICES_PER_TICK = 2;
const PASS_START: ScanCursor = { address: '', asset: null };

export interface Slice {
  pairs: DuePair[];
  /** Where the next slice starts; null: this was the pass's last. */
  next: ScanCursor | null;
}

/** One slice from `from`: its due pairs (at most `room`) and where the next slice starts. */
export async function scanSlice(db: Executor, from: ScanCursor, size: number, room: number): Promise<Slice> {
  const through = await sliceEnd(db, from.address, size);
  const pairs = await duePairsInSlice(db, from, through, room);
  const last = pairs.at(-1);
  // Cut short by `room`: the rest of this slice is still to come, right after the last pair given.
  if (last && pairs.length === room) return { pairs, next: { address: last.address, asset: last.asset } };
  return { pairs, next: through === undefined ? null : { address: through, asset: null } };
}

/** Every due pair (at most `limit`), slice by slice, the event loop running between slices. */
export async function allDuePairs(db: Executor, limit: number, size = SCAN_SLICE): Promise<DuePair[]> {
  const out: DuePair[] = [];
  let from: ScanCursor | null = PASS_START;
  for (let first = true; from && out.length < limit; first = false) {
    if (!first) await eventLoopTurn();
    const s: Slice = await scanSlice(db, from, size, limit - out.length);
    out.push(...s.pairs);
    from = s.next;
  }
  return out;
}

/**
 * The full scan as the sweeper runs it, a few slices per tick. A pass starts at most every
 * `passMs` and is paced by the number of slices the previous pass took, so it ends within
 * `passMs` however large the database; a pair due behind the cursor is found by the next pass,
 * so within two `passMs` at most.
 */
export class FullScan {
  private readonly size: number;
  private readonly passMs: number;
  private readonly maxSlicesPerTick: number;
  private readonly firstPassSlices: number;
  private cursor: ScanCursor = PASS_START;
  private running = false;
  private passStartedAt = -Infinity;
  private slicesThisPass = 0;
  private lastPassSlices: number | null = null;
  /** Passes completed (for tests and logs). */
  passes = 0;

  constructor(
    private readonly db: Executor,
    opts: ScanOptions = {},
  ) {
    this.size = opts.slice ?? SCAN_SLICE;
    this.passMs = opts.passMs ?? PASS_MS;
    this.maxSlicesPerTick = opts.maxSlicesPerTick ?? MAX_SLICES_PER_TICK;
    this.firstPassSlices = Math.min(this.maxSlicesPerTick, opts.firstPassSlicesPerTick ?? FIRST_PASS_SLICES_PER_TICK);
  }

  /** This tick's share of the pass: its due pairs, at most `room` (`now`: ms since epoch). */
  async next(now: number, room: number): Promise<DuePair[]> {
    if (room <= 0 || !this.begin(now)) return [];
    const out: DuePair[] = [];
    const slices = this.slicesFor(now);
    for (let i = 0; i < slices && this.running && out.length < room; i++) {
      if (i > 0) await eventLoopTurn(); // one slice at a time holds the event loop
      const s = await scanSlice(this.db, this.cursor, this.size, room - out.length);
      out.push(...s.pairs);
      this.slicesThisPass++;
      if (s.next) this.cursor = s.next;
      else this.end();
    }
    return out;
  }

  private begin(now: number): boolean {
    if (this.running) return true;
    if (now - this.passStartedAt < this.passMs) return false;
    this.running = true;
    this.passStartedAt = now;
    this.slicesThisPass = 0;
    this.cursor = PASS_START;
    return true;
  }

  private end(): void {
    this.running = false;
    this.lastPassSlices = this.slicesThisPass;
    this.passes++;
  }

  /** As many slices as keep the pass on pace to end within `passMs` (the first pass: a few). */
  private slicesFor(now: number): number {
    if (this.lastPassSlices === null) return this.firstPassSlices;
    const due = Math.ceil((this.lastPassSlices * (now - this.passStartedAt)) / this.passMs) - this.slicesThisPass;
    return Math.min(this.maxSlicesPerTick, Math.max(1, due));
  }
}
