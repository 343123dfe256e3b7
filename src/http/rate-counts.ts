/**
 * The rate-limit counters shared by every `serve` replica through Redis (REDIS_URL): the per-IP
 * and per-key limits of /v1, the cabinet's per-IP limit and its sign-in limits then hold across replicas
 * (docs/adr/0050-rate-limits-across-replicas.md). Counting is @fastify/rate-limit's own: its Redis
 * store (one Lua script per request: INCR, and PEXPIRE when the window opens) and, while Redis does
 * not answer, its in-process store, so the limits go on per replica instead of stopping payments
 * or dropping every limit. The headers come out the same from either store.
 */
import { Redis } from 'ioredis';
import { createRequire } from 'node:module';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Logger } from 'pino';
import { redisLabel, type Config } from '../config.js';

type Counted = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** What the plugin's stores do: `incr` counts a request, `read` looks without counting. */
interface CountStore {
  incr(key: string, done: Counted, timeWindow: number, max: number): void;
  read(key: string, done: Counted, timeWindow: number, max: number): void;
  child(limit: LimitOptions): CountStore;
}

/** The options of one limiter as the plugin hands them to its store's `child`. */
interface LimitOptions {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
  cache?: number;
}

// The plugin's two stores, required by path: the package exports only the plugin, and its
// `redis` option cannot fall back to counting in process.
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key: string,
) => CountStore;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache?: number,
) => CountStore;

/** Longest a request waits for Redis before it is counted in process instead. */
export const REDIS_COMMAND_TIMEOUT_MS = 250;
/** How long Redis is left alone after a failed command (a hung server costs one timeout, not one a request). */
const PAUSE_AFTER_FAILURE_MS = 2_000;
/** How long start-up waits for the first connection before serving with counts in process. */
const FIRST_CONNECT_MS = 2_000;

/** The connection and whether it is counted on: one per process, shared by every limiter. */
class RedisLink {
  private down = false;
  private pausedUntil = 0;
  private closed = false;

  constructor(
    readonly redis: Redis,
    private readonly logger: Logger,
    private readonly label: string,
  ) {
    // Without a listener ioredis prints every failed reconnection itself.
    redis.on('error', (err: Error) => this.failed(err));
  }

  usable(): boolean {
    return this.redis.status === 'ready' && Date.now() >= this.pausedUntil;
  }

  failed(err: Error | null): void {
    if (this.closed) return;
    this.pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
    if (this.down) return;
    this.down = true;
    this.logger.warn(
      { redis: this.label, reason: err?.message ?? 'no answer' },
      'rate limits: Redis does not answer; each process counts its own requests until it does',
    );
  }

  answered(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.info({ redis: this.label }, 'rate limits: Redis answers again; the counts are shared');
  }

  /** Resolves once connected, or after `ms`, or at the first failure: start-up never waits long. */
  async connected(ms: number): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        this.redis.off('error', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.redis.once('ready', done);
      this.redis.once('error', done);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}

/** Counts in Redis while it answers, in this process while it does not. */
class FallbackStore implements CountStore {
  constructor(
    private readonly shared: CountStore,
    private readonly local: CountStore,
    private readonly link: RedisLink,
    private readonly nameSpace: string,
  ) {}

  incr(key: string, done: Counted, timeWindow: number, max: number): void {
    this.count('incr', key, done, timeWindow, max);
  }

  read(key: string, done: Counted, timeWindow: number, max: number): void {
    this.count('read', key, done, timeWindow, max);
  }

  private count(how: 'incr' | 'read', key: string, done: Counted, timeWindow: number, max: number): void {
    if (!this.link.usable()) return this.local[how](key, done, timeWindow, max);
    this.shared[how](
      key,
      (err, result) => {
        if (err || !result) {
          this.link.failed(err);
          this.local[how](key, done, timeWindow, max);
          return;
        }
        this.link.answered();
        done(null, result);
      },
      timeWindow,
      max,
    );
  }

  /**
   * One limiter's store. Its Redis keys are `<prefix>ratelimit:<listener>:<client or key>`: the
   * plugin's own child store would add the route to the key, and a limiter made with
   * `createRateLimit` has none.
   */
  child(limit: LimitOptions): CountStore {
    const continueExceeding = limit.continueExceeding ?? false;
    const exponentialBackoff = limit.exponentialBackoff ?? false;
    return new FallbackStore(
      new RedisStore(continueExceeding, exponentialBackoff, this.link.redis, this.nameSpace),
      this.local.child(limit),
      this.link,
      this.nameSpace,
    );
  }
}

export type Listener = 'v1' | 'cabinet' | 'pay';

/** Counts in a fixed window that opens at the first count: the current count and the ms left. */
export interface WindowCounter {
  incr(key: string, windowMs: number, max: number): Promise<{ current: number; ttl: number }>;
}

export interface SharedRateCounts {
  /** The store for @fastify/rate-limit's `store` option on one listener. */
  store(listener: Listener): FastifyRateLimitStoreCtor;
  /** Counters of their own under `<prefix>ratelimit:<name>:` (the cabinet's sign-in limits). */
  counter(name: string): WindowCounter;
  close(): Promise<void>;
}

/**
 * The Redis connection of the rate limits, or null without REDIS_URL (each process counts alone).
 * Waits a moment for the first connection, so a replica that starts with Redis up counts in Redis
 * from its first request; with Redis down it starts all the same.
 */
export async function openSharedRateCounts(config: Config, logger: Logger): Promise<SharedRateCounts | null> {
  if (!config.redisUrl) return null;
  const redis = new Redis(config.redisUrl, {
    // A command fails at once while disconnected (counted in process) instead of waiting in a queue.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: FIRST_CONNECT_MS,
    connectionName: 'paygate-rate-limits',
  });
  const link = new RedisLink(redis, logger, redisLabel(config.redisUrl));
  await link.connected(FIRST_CONNECT_MS);
  const prefix = config.redisKeyPrefix;
  return {
    store(listener) {
      const nameSpace = `${prefix}ratelimit:${listener}:`;
      // The plugin makes the root store itself, from its own options; the limiters are its children.
      return class RootStore extends FallbackStore {
        constructor(options: LimitOptions) {
          super(
            new RedisStore(false, false, redis, nameSpace),
            new LocalStore(options.continueExceeding ?? false, options.exponentialBackoff ?? false, options.cache),
            link,
            nameSpace,
          );
        }
      } as unknown as FastifyRateLimitStoreCtor;
    },
    counter(name) {
      const nameSpace = `${prefix}ratelimit:${name}:`;
      const counts = new FallbackStore(
        new RedisStore(false, false, redis, nameSpace),
        new LocalStore(false, false),
        link,
        nameSpace,
      );
      return {
        incr: (key, windowMs, max) =>
          new Promise((resolve, reject) =>
            counts.incr(
              key,
              (err, r) => (err || !r ? reject(err ?? new Error('no count')) : resolve(r)),
              windowMs,
              max,
            ),
          ),
      };
    },
    close: () => link.close(),
  };
}
