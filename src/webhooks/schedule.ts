/**
 * When to try a delivery again (docs/webhooks.md "Retries"): 408, 429, 5xx and network
 * errors retry with exponential backoff and ±20 % jitter, for 3 days from the first attempt; a
 * `Retry-After` (seconds or an HTTP date) is honoured: the next attempt is never earlier. Any
 * other non-2xx answer fails at once.
 */
export const RETRY_WINDOW_MS = 3 * 86_400_000;
export const FIRST_DELAY_MS = 30_000;
export const MAX_DELAY_MS = 6 * 3_600_000;
export const JITTER = 0.2;

/** Nominal pause after the n-th failed attempt (n ≥ 1): 30 s, 1 min, 2 min, … capped at 6 h. */
export function nominalDelayMs(n: number): number {
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(n - 1, 30));
}

/** The pause with jitter; `random` returns [0, 1). */
export function backoffMs(n: number, random: () => number): number {
  return Math.round(nominalDelayMs(n) * (1 - JITTER + 2 * JITTER * random()));
}

export type Verdict = 'delivered' | 'retry' | 'failed';

export function verdictOf(status: number | null): Verdict {
  if (status === null) return 'retry';
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  return 'failed';
}

/** Milliseconds a Retry-After header asks for (delta seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (header === null) return null;
  const v = header.trim();
  if (/^[0-9]{1,10}$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/**
 * The next attempt after a retryable failure, or null when it would fall outside the retry window
 * (the delivery is then `failed`).
 */
export function nextAttemptAt(opts: {
  attempts: number;
  now: Date;
  windowStart: Date;
  retryAfter: string | null;
  random: () => number;
}): Date | null {
  const asked = retryAfterMs(opts.retryAfter, opts.now);
  const delay = Math.max(backoffMs(opts.attempts, opts.random), asked ?? 0);
  const next = new Date(opts.now.getTime() + delay);
  return next.getTime() - opts.windowStart.getTime() > RETRY_WINDOW_MS ? null : next;
}
