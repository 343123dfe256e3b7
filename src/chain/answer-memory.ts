/**
 * Memory for the node's large answers, reused from one answer to the next. While the watcher
 * catches up it reads a ~35 MB block range and a ~140 KB infos answer per block; each in a new
 * buffer meant memory touched for the first time, which on a virtual machine costs a fault per
 * 4 KiB page: filling a new 34.6 MB buffer took 132 ms where a reused one took 2 ms
 * (docs/decisions.md, release 3, ninth round). An answer's buffer moves to the parse worker and
 * comes back when it has been decoded (parse-worker.ts), so a buffer is only ever in one place: a
 * transferred ArrayBuffer is detached where it was.
 *
 * Answers are views of their exact length over a buffer that may be longer. A buffer is handed
 * out again only to an answer at least half its size, kept at most KEEP_MS after its last use, and
 * the free ones never hold more than MAX_FREE_BYTES.
 */

/** Smaller answers come from the allocator's own reused memory (below glibc's mmap threshold). */
export const MIN_POOLED_BYTES = 128 * 1024;
const MAX_FREE_BYTES = 192 * 1024 * 1024;
const KEEP_MS = 30_000;
const MIB = 1024 * 1024;

/** Capacity for an answer of `n` bytes: whole 64 KiB below 1 MiB, whole MiB above. */
function capacityFor(n: number): number {
  const unit = n < MIB ? 64 * 1024 : MIB;
  return Math.ceil(n / unit) * unit;
}

export class AnswerMemory {
  private free: ArrayBuffer[] = [];
  private freeBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Answers served from a reused buffer, and from a new one (a test reads them). */
  reused = 0;
  fresh = 0;

  /** A view of exactly `length` bytes over a buffer no other answer holds. */
  take(length: number): Uint8Array {
    if (length >= MIN_POOLED_BYTES) {
      let best = -1;
      for (let i = 0; i < this.free.length; i++) {
        const c = (this.free[i] as ArrayBuffer).byteLength;
        if (c >= length && c <= 2 * length && (best < 0 || c < (this.free[best] as ArrayBuffer).byteLength)) best = i;
      }
      if (best >= 0) {
        const [buffer] = this.free.splice(best, 1) as [ArrayBuffer];
        this.freeBytes -= buffer.byteLength;
        this.reused++;
        return new Uint8Array(buffer, 0, length);
      }
    }
    this.fresh++;
    return new Uint8Array(new ArrayBuffer(length >= MIN_POOLED_BYTES ? capacityFor(length) : length), 0, length);
  }

  /**
   * Takes back a buffer whose answer is done with. Only buffers from take() come here (a detached
   * one, already moved elsewhere, has no bytes and is ignored).
   */
  give(buffer: ArrayBuffer): void {
    if (buffer.byteLength < MIN_POOLED_BYTES) return;
    this.free.push(buffer);
    this.freeBytes += buffer.byteLength;
    while (this.freeBytes > MAX_FREE_BYTES) {
      const oldest = this.free.shift() as ArrayBuffer;
      this.freeBytes -= oldest.byteLength;
    }
    // Kept while answers keep coming; dropped once the watcher is at the head (small answers).
    if (this.timer) this.timer.refresh();
    else {
      this.timer = setTimeout(() => this.release(), KEEP_MS);
      this.timer.unref();
    }
  }

  /** Drops every free buffer (the memory goes back to the system). */
  release(): void {
    this.free = [];
    this.freeBytes = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  get freeBuffers(): number {
    return this.free.length;
  }
}

/** The process's one pool: the HTTP client takes from it, the parse worker and parsers give back. */
export const answerMemory = new AnswerMemory();
