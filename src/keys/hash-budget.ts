/**
 * Counts per client in fixed windows of the clock (a minute, a second): the hashing budgets of the
 * API key verifier, which tests move with a manual clock. Counters of a past window are dropped
 * whole; within a window at most `maxClients` are held (the oldest goes first), so a flood of
 * addresses cannot grow memory.
 * Written here rather than taken from @fastify/rate-limit's store: the budgets run on the app's
 * clock (the plugin's store reads Date.now()) and need a refund for a use that cost no hash.
 */
import type { Clock } from '../clock.js';

export interface BudgetState {
  remaining: number;
  /** Seconds until the window ends (at least 1). */
  reset: number;
  limited: boolean;
}

export class HashBudget {
  private window = -1;
  private counts = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
    private readonly maxClients = 100_000,
  ) {}

  /** Counts one use by `client` and tells whether it went past the limit. */
  hit(client: string): BudgetState {
    return this.state(client, 1);
  }

  /** The state of `client` without counting. */
  peek(client: string): BudgetState {
    return this.state(client, 0);
  }

  /** Takes back a use counted at `at` (ms) that cost nothing; a no-op once that window has passed. */
  refund(client: string, at: number): void {
    const count = this.counts.get(client);
    if (Math.floor(at / this.windowMs) === this.window && count !== undefined && count > 0)
      this.counts.set(client, count - 1);
  }

  private state(client: string, add: number): BudgetState {
    const now = this.clock.now().getTime();
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(client) ?? 0) + add;
    if (add) {
      if (!this.counts.has(client) && this.counts.size >= this.maxClients) {
        // A Map iterates in insertion order: the first key is the oldest counter.
        this.counts.delete(this.counts.keys().next().value as string);
      }
      this.counts.set(client, count);
    }
    const reset = Math.max(1, Math.ceil(((window + 1) * this.windowMs - now) / 1000));
    return { remaining: Math.max(0, this.limit - count), reset, limited: count > this.limit };
  }
}
