/**
 * Sign-in attempts per client address and per account (email), a minute each. With REDIS_URL they
 * are counted in the shared store (src/http/rate-counts.ts), so the limits hold across every
 * `serve` replica, and while Redis does not answer each process counts alone; without it each
 * process counts alone, on the app's clock.
 */
import { AppError } from '../errors.js';
import type { SharedRateCounts, WindowCounter } from '../http/rate-counts.js';
import { HashBudget } from '../keys/hash-budget.js';
import type { Clock } from '../clock.js';

const WINDOW_MS = 60_000;

export interface SignInLimit {
  /** Counts one attempt by `key`; throws 429 rate_limited with Retry-After past the limit. */
  spend(key: string): Promise<void>;
}

function limited(what: string, reset: number): AppError {
  return new AppError('rate_limited', `Too many sign-in attempts ${what}; retry in ${reset} s`, {
    headers: { 'retry-after': String(reset) },
  });
}

class LocalLimit implements SignInLimit {
  private readonly budget: HashBudget;

  constructor(
    max: number,
    clock: Clock,
    private readonly what: string,
  ) {
    this.budget = new HashBudget(max, WINDOW_MS, clock);
  }

  async spend(key: string): Promise<void> {
    const s = this.budget.hit(key);
    if (s.limited) throw limited(this.what, s.reset);
  }
}

class SharedLimit implements SignInLimit {
  constructor(
    private readonly counter: WindowCounter,
    private readonly max: number,
    private readonly what: string,
  ) {}

  async spend(key: string): Promise<void> {
    const { current, ttl } = await this.counter.incr(key, WINDOW_MS, this.max);
    if (current > this.max) throw limited(this.what, Math.max(1, Math.ceil(ttl / 1000)));
  }
}

export interface SignInLimits {
  perIp: SignInLimit;
  perAccount: SignInLimit;
}

export function signInLimits(
  max: { perIp: number; perAccount: number },
  clock: Clock,
  shared: SharedRateCounts | null,
): SignInLimits {
  if (!shared)
    return {
      perIp: new LocalLimit(max.perIp, clock, 'from this address'),
      perAccount: new LocalLimit(max.perAccount, clock, 'for this account'),
    };
  return {
    perIp: new SharedLimit(shared.counter('cabinet-sign-in-ip'), max.perIp, 'from this address'),
    perAccount: new SharedLimit(shared.counter('cabinet-sign-in-account'), max.perAccount, 'for this account'),
  };
}
