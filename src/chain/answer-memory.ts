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
 * out again only to an answer at least half its size, kept 30-60 s after it was last given back
 * (KEEP_MS, then the next look), and the free ones never hold more than MAX_FREE_BYTES.
 */

/** Smaller answers come from the allocator's own reused memory (below glibc's mmap threshold). */
export const MIN_POOLED_BYTES = 128 * 1024;
/** The largest buffer take() makes: answers over 64 MB are read in chunks (http-body.ts). */
const MAX_POOLED_BYTES = 64 * 1024 * 1024;
const MAX_FREE_BYTES = 192 * 1024 * 1024;
const KEEP_MS = 30_000;
const MIB = 1024 * 1024;

/** Capacity for an answer of `n` bytes: whole 64 KiB below 1 MiB, whole MiB above. */
function capacityFor(n: number): number {
  const unit = n < MIB ? 64 * 1024 : MIB;
  return Math.ceil(n / unit) * unit;
}

interface Free {
  buffer: ArrayBuffer;
  /** performance.now() when it was given back. */
  at: number;
}

export class AnswerMemory {
  private free: Free[] = [];
  private freeBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Answers served from a reused buffer, and from a new one (a test reads them). */
  reused = 0;
  fresh = 0;

  constructor(private readonly keepMs = KEEP_MS) {}

  /** A view of exactly `length` bytes over a buffer no other answer holds. */
  take(length: number): Uint8Array {
    if (length < MIN_POOLED_BYTES || length > MAX_POOLED_BYTES) return new Uint8Array(length);
    this.dropIdle();
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const c = (this.free[i] as Free).buffer.byteLength;
      if (c >= length && c <= 2 * length && (best < 0 || c < (this.free[best] as Free).buffer.byteLength)) best = i;
    }
    if (best >= 0) {
      const [{ buffer }] = this.free.splice(best, 1) as [Free];
      this.freeBytes -= buffer.byteLength;
      this.reused++;
      return new Uint8Array(buffer, 0, length);
    }
    this.fresh++;
    return new Uint8Array(new ArrayBuffer(capacityFor(length)), 0, length);
  }

  /**
   * Takes back a buffer whose answer is done with. Only the sizes take() makes are kept (a buffer
   * that crossed to the parse worker and back is a new object, so the size is what can be
   * checked): not a decompressed copy, not a joined chunked answer. A buffer already given back,
   * or one that has moved elsewhere (detached: no bytes), is ignored.
   */
  give(buffer: ArrayBuffer): void {
    const size = buffer.byteLength;
    if (size < MIN_POOLED_BYTES || size > MAX_POOLED_BYTES || size !== capacityFor(size) || this.free.some((f) => f.buffer === buffer)) return;
    this.free.push({ buffer, at: performance.now() });
    this.freeBytes += buffer.byteLength;
    while (this.freeBytes > MAX_FREE_BYTES) {
      const oldest = this.free.shift() as Free;
      this.freeBytes -= oldest.buffer.byteLength;
    }
    this.dropIdle();
    this.arm();
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

  /**
   * Looks again keepMs from now, so idle buffers go even when no answer comes (at the head only
   * small ones do: a block's infos): a free buffer lives at most twice keepMs.
   */
  private arm(): void {
    if (this.timer || this.free.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dropIdle();
      this.arm();
    }, this.keepMs);
    this.timer.unref();
  }

  /** Free buffers unused for keepMs go back to the system. */
  private dropIdle(): void {
    const before = performance.now() - this.keepMs;
    if (!this.free.some((f) => f.at < before)) return;
    this.free = this.free.filter((f) => f.at >= before);
    this.freeBytes = this.free.reduce((n, f) => n + f.buffer.byteLength, 0);
  }
}

/** The process's one pool: the HTTP client takes from it, the parse worker and parsers give back. */
export const answerMemory = new AnswerMemory();
