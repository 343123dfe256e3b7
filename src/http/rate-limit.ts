/**
 * Fixed-window rate limits (DESIGN.md §10), one limiter per IP and one per key. The window is the
 * clock's current minute (or `windowMs`); counters of past windows are dropped whole, and within a
 * window the map holds at most `maxClients` counters (the oldest is evicted first), so memory stays
 * bounded even when a flood of addresses arrives within one minute.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Clock } from '../clock.js';

export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  limited: boolean;
}

export interface LimiterOptions {
  windowMs?: number;
  /** Counters kept per window; past this the oldest is dropped (that client starts again at 0). */
  maxClients?: number;
}

export const DEFAULT_MAX_CLIENTS = 100_000;

export class FixedWindowLimiter {
  private window = -1;
  private counts = new Map<string, number>();
  private readonly windowMs: number;
  private readonly maxClients: number;

  constructor(private readonly limit: number, private readonly clock: Clock, opts: LimiterOptions = {}) {
    this.windowMs = opts.windowMs ?? 60_000;
    this.maxClients = opts.maxClients ?? DEFAULT_MAX_CLIENTS;
  }

  /** Counts one request of `client` and tells whether it is over the limit. */
  hit(client: string): RateState {
    return this.state(client, 1);
  }

  /** The state of `client` without counting a request. */
  peek(client: string): RateState {
    return this.state(client, 0);
  }

  /**
   * Takes back one request of `client` that hit() counted at time `at` (ms), when it turned out
   * to cost nothing; a no-op once that window has passed.
   */
  refund(client: string, at: number): void {
    const count = this.counts.get(client);
    if (Math.floor(at / this.windowMs) === this.window && count !== undefined && count > 0) this.counts.set(client, count - 1);
  }

  /** Counters held in the current window (bounded by maxClients). */
  get size(): number {
    return this.counts.size;
  }

  private state(client: string, add: number): RateState {
    const now = this.clock.now().getTime();
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(client) ?? 0) + add;
    if (add) {
      if (!this.counts.has(client) && this.counts.size >= this.maxClients) {
        // Maps iterate in insertion order: the first key is the oldest counter.
        const oldest = this.counts.keys().next().value as string;
        this.counts.delete(oldest);
      }
      this.counts.set(client, count);
    }
    const reset = Math.max(1, Math.ceil(((window + 1) * this.windowMs - now) / 1000));
    return { limit: this.limit, remaining: Math.max(0, this.limit - count), reset, limited: count > this.limit };
  }
}

/** The headers every /v1 response carries (DESIGN.md §10). */
export function rateHeaders(s: RateState): Record<string, string> {
  return { 'x-ratelimit-limit': String(s.limit), 'x-ratelimit-remaining': String(s.remaining), 'x-ratelimit-reset': String(s.reset) };
}

/** The state a client should see: the tighter of the two limits. */
export function tighter(a: RateState, b: RateState | undefined): RateState {
  if (!b) return a;
  if (b.limited && !a.limited) return b;
  if (a.limited && !b.limited) return a;
  return b.remaining < a.remaining ? b : a;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, an embedded IPv4 tail converted). */
function ipv6Groups(ip: string): number[] {
  let text = ip.split('%')[0]!;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16));
}

/**
 * The bucket a client address is counted in: an IPv4 address is itself; an IPv6 client is
 * bucketed by its /64 (one subscriber usually holds a whole /64, so per-address buckets would let
 * it take 2^64 budgets); an IPv4-mapped IPv6 address (::ffff:a.b.c.d) counts as the IPv4 address.
 */
export function clientBucket(ip: string): string {
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return ip;
  const g = ipv6Groups(ip);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return `${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.${g[7]! & 0xff}`;
  }
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`;
}
