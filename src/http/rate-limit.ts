/**
 * The request limits of a surface, counted by @fastify/rate-limit over a window of a minute: per
 * client address (an IPv6 client's /64) or per key of the surface's choosing, in this process or in
 * Redis shared by the replicas (rate-counts.ts). The `x-ratelimit-*` headers are written by the
 * surface's own hook (surface.ts), not by the plugin: its hooks are per route, so 404s and answers
 * before routing would go without them.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

/** Where a client or a key stands in its window of a minute. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window ends. */
  reset: number;
  exceeded: boolean;
  /** What is counted: the client's address (an IPv6 client's /64), or the key id. */
  key: string;
}

export type RateCheck = (req: FastifyRequest, opts?: { increment?: boolean }) => Promise<RateState>;

/** Counters held per limit; past it the client seen least recently is dropped first. */
const RATE_COUNTERS = 100_000;

/**
 * A limit of `max` requests a minute, per client address or per `keyOf(req)`. The plugin must be
 * registered on `app` (the surface does it when the surface has a limit).
 */
export function rateCheck(
  app: Pick<FastifyInstance, 'createRateLimit'>,
  max: number,
  keyOf?: (req: FastifyRequest) => string,
): RateCheck {
  // `cache` sizes the store made for this limiter; the plugin's types leave it out of these options.
  const options = { max, timeWindow: 60_000, cache: RATE_COUNTERS, ...(keyOf ? { keyGenerator: keyOf } : {}) };
  const check = app.createRateLimit(options);
  return async (req, opts) => {
    const r = await check(req, opts);
    // Only an allow list answers without counts, and none is configured.
    if (r.isAllowed) throw new Error('rate limit: answered without counts');
    return { limit: r.max, remaining: r.remaining, reset: r.ttlInSeconds, exceeded: r.isExceeded, key: r.key };
  };
}

export function setRateHeaders(reply: FastifyReply, s: RateState): void {
  void reply
    .header('x-ratelimit-limit', s.limit)
    .header('x-ratelimit-remaining', s.remaining)
    .header('x-ratelimit-reset', s.reset);
}

export function rateLimited(s: RateState): AppError {
  return new AppError('rate_limited', `Too many requests; retry in ${s.reset} s`, {
    headers: { 'retry-after': String(s.reset) },
  });
}
