/**
 * Fixed-window rate limits per minute (DESIGN.md §10), one limiter per IP and one per key. The
 * window is the clock's current minute; counters of past windows are dropped whole, so memory is
 * bounded by the clients of one minute.
 */
import type { Clock } from '../clock.js';

export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  limited: boolean;
}

const WINDOW_MS = 60_000;

export class FixedWindowLimiter {
  private window = -1;
  private counts = new Map<string, number>();

  constructor(private readonly limit: number, private readonly clock: Clock) {}

  /** Counts one request of `client` and tells whether it is over the limit. */
  hit(client: string): RateState {
    return this.state(client, 1);
  }

  /** The state of `client` without counting a request. */
  peek(client: string): RateState {
    return this.state(client, 0);
  }

  private state(client: string, add: number): RateState {
    const now = this.clock.now().getTime();
    const window = Math.floor(now / WINDOW_MS);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(client) ?? 0) + add;
    if (add) this.counts.set(client, count);
    const reset = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
    return { limit: this.limit, remaining: Math.max(0, this.limit - count), reset, limited: count > this.limit };
  }
}

/** The state a client should see: the tighter of the two limits. */
export function tighter(a: RateState, b: RateState | undefined): RateState {
  if (!b) return a;
  if (b.limited && !a.limited) return b;
  if (a.limited && !b.limited) return a;
  return b.remaining < a.remaining ? b : a;
}
