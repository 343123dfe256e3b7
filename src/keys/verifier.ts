/**
 * Authentication of `X-Api-Key`. Every request reads its key row with its merchant in one indexed
 * query, so a revoked key or a disabled merchant is refused on the next request, whichever process
 * made the change. What is kept in memory is only the costly part, argon2id: once a secret passed
 * for a key id, the SHA-256 digest of that secret (never the secret) is trusted for at most
 * VERIFIED_FOR_MS, so a right key costs no hashing and another secret for that key id is refused
 * by a constant-time comparison of digests, without hashing.
 *
 * Hashing is bounded: an unknown or revoked key id never hashes; a secret that already failed is
 * remembered; each client address gets a small hashing budget per minute per key id and overall
 * (a stranger who knows a key id spends only their own budget, never the key owner's); at most
 * `hashesPerSecond` verifications start per second in all, a few run at once and a bounded queue
 * waits at most `maxQueueWaitMs` for its turn. A wrong key is always the same 401 (the cause is
 * never stated); a key that could not be checked is never a 401, since it may be right: a client
 * past its own budget gets 429 rate_limited, and when the server's hashing capacity is spent the
 * answer is 503 service_unavailable (the client's budget is not charged); both carry Retry-After.
 * The cabinet's password checks (`verifyPassword`) go through the same hashing slots in a share of
 * their own, so a flood of sign-ins holds at most that share and API keys keep the rest.
 *
 * A key's terms are read with it (same query): past its expiry, or from a client address outside
 * its allowed networks, it is the same 401 as any bad key, decided before any hashing. Its last use
 * is stamped at most once a minute per key (an in-memory throttle, and a conditional write that
 * other processes' stamps also hold back), after the answer's path: never a write per request.
 */
import argon2 from 'argon2';
import { hash, timingSafeEqual } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError } from '../errors.js';
import type { MerchantRow } from '../merchants/store.js';
import { merchantEnabled } from '../merchants/switches.js';
import { parseApiKey } from './format.js';
import { HashBudget } from './hash-budget.js';
import { findKeyWithMerchant, touchLastUsed } from './store.js';
import { usableUnderTerms } from './terms.js';

/** How long a secret that passed argon2id is recognised by its digest, without hashing again. */
export const VERIFIED_FOR_MS = 60_000;
/** A key's last use is written at most this often. */
export const LAST_USED_EVERY_MS = 60_000;
/** Keys whose last stamp time is remembered (bounded; forgetting one costs one conditional write). */
const LAST_USED_TRACKED = 100_000;

export interface VerifierOptions {
  /** argon2 verifications allowed per client address and key id per minute. */
  hashBudgetPerKey?: number;
  /** argon2 verifications allowed per client address per minute, all key ids together. */
  hashBudgetPerIp?: number;
  /** argon2 verifications running at once; more wait in a queue of at most `maxQueue`. */
  maxConcurrentHashes?: number;
  maxQueue?: number;
  /**
   * How long a verification may wait in that queue for its turn; past it the key is answered 503
   * with Retry-After, so a right key never waits long behind an attack.
   */
  maxQueueWaitMs?: number;
  /** argon2 verifications started per second by all clients together (CPU bound of the process). */
  hashesPerSecond?: number;
  /** Client addresses whose budgets are counted per minute (bounded maps; oldest dropped first). */
  maxClients?: number;
  /**
   * The share of password checks (cabinet sign-ins): at most this many hash at once (default 1), so
   * the other hashing slots stay free for API keys; at most `passwordQueue` wait (default 8), each
   * at most `maxQueueWaitMs`. Past either a sign-in is answered 503 with Retry-After. The share
   * is not counted in the keys' per-second rate: its one slot bounds its CPU already.
   */
  passwordSlots?: number;
  passwordQueue?: number;
}

interface Verified {
  /** SHA-256 of the secret that passed. */
  digest: Buffer;
  /** The stored hash it passed against: a key whose hash changed is verified again. */
  secretHash: string;
  at: number;
}

const MAX_REMEMBERED_FAILURES = 32;

/** Where a verification waits for its turn, and what a full queue or a long wait answers. */
interface HashingShare {
  limit: LimitFunction;
  maxQueue: number;
  busy: (retryAfter: number) => AppError;
  count: () => void;
}

export const unauthorized = () => new AppError('unauthorized', 'Missing or invalid API key');

/** The client spent its own hashing budget: the key was not checked, so it is not called wrong. */
const hashBudgetSpent = (retryAfter: number) =>
  new AppError('rate_limited', `Too many API keys tried from this address; retry in ${retryAfter} s`, {
    headers: { 'retry-after': String(retryAfter) },
  });

/** The process's hashing capacity is spent: the key was not checked, so it is not called wrong. */
const hashingBusy = (retryAfter: number) =>
  new AppError('service_unavailable', `API keys cannot be verified right now; retry in ${retryAfter} s`, {
    headers: { 'retry-after': String(retryAfter) },
  });

/** The password share is full: the password was not checked, so it is not called wrong. */
const passwordsBusy = (retryAfter: number) =>
  new AppError('service_unavailable', `Sign-ins cannot be checked right now; retry in ${retryAfter} s`, {
    headers: { 'retry-after': String(retryAfter) },
  });

const digestOf = (secret: string): Buffer => hash('sha256', secret, 'buffer');

export class ApiKeyVerifier {
  private readonly verified = new Map<string, Verified>();
  /** Hex digests of secrets that failed, per key id (bounded), so a repeat costs no hashing. */
  private readonly failed = new Map<string, Set<string>>();
  /** Verifications under way, so concurrent first requests with one key share one hash. */
  private readonly inflight = new Map<string, Promise<void>>();
  /** When this process last stamped each key's last use (ms). */
  private readonly stamped = new Map<string, number>();
  private readonly budgetPerKey: HashBudget;
  private readonly budgetPerIp: HashBudget;
  private readonly hashRate: HashBudget;
  private readonly hashing: LimitFunction;
  private readonly maxQueue: number;
  private readonly maxQueueWaitMs: number;
  private readonly passwords: LimitFunction;
  private readonly passwordQueue: number;
  /** Count of argon2 verifications of keys done; read by tests, benchmarks and /metrics. */
  hashCount = 0;
  /** Count of argon2 verifications of passwords done (cabinet sign-ins, decoys included). */
  passwordHashCount = 0;
  /**
   * Keys left unchecked because the client spent its hashing budget (429) or the server its
   * capacity (503); passwords left unchecked because their share was full (503).
   */
  readonly refused = { client_budget: 0, server_busy: 0, passwords_busy: 0 };

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    opts: VerifierOptions = {},
  ) {
    this.budgetPerKey = new HashBudget(opts.hashBudgetPerKey ?? 10, 60_000, clock, opts.maxClients);
    this.budgetPerIp = new HashBudget(opts.hashBudgetPerIp ?? 30, 60_000, clock, opts.maxClients);
    this.hashRate = new HashBudget(opts.hashesPerSecond ?? 20, 1000, clock);
    this.hashing = pLimit(opts.maxConcurrentHashes ?? 2);
    this.maxQueue = opts.maxQueue ?? 64;
    this.maxQueueWaitMs = opts.maxQueueWaitMs ?? 2_000;
    this.passwords = pLimit(opts.passwordSlots ?? 1);
    this.passwordQueue = opts.passwordQueue ?? 8;
  }

  /**
   * Whether `password` matches the argon2id `passwordHash`, through the password share: a check
   * takes one of its own few slots first and then a hashing slot like a key's, so password checks
   * never hold more than their share of the hashing and never wait in the keys' queue more than
   * their share deep. A key needing a hash waits behind at most that many password checks,
   * whatever the flood of sign-ins. A full share is 503 with Retry-After, for sign-ins only.
   */
  async verifyPassword(passwordHash: string, password: string): Promise<boolean> {
    return this.inHashingSlot(
      () => this.hashing(() => argon2.verify(passwordHash, password)),
      () => undefined,
      {
        limit: this.passwords,
        maxQueue: this.passwordQueue,
        busy: (s) => this.passwordsBusy(s),
        count: () => (this.passwordHashCount += 1),
      },
    );
  }

  /**
   * The merchant of a valid key; 401 unauthorized or 403 merchant_disabled otherwise. `clientIp`
   * is the client's rate-limit bucket (an IPv6 client's /64), whose hashing budget is spent;
   * `clientAddress` the client's own address, held against the key's allowed networks (a key
   * with networks is refused when it is unknown).
   */
  async authenticate(header: string | undefined, clientIp = 'local', clientAddress?: string): Promise<MerchantRow> {
    const parsed = parseApiKey(header);
    if (!parsed) throw unauthorized();
    const found = await findKeyWithMerchant(this.db, parsed.keyId);
    const now = this.clock.now();
    if (!found || !usableUnderTerms(found, now, clientAddress)) throw unauthorized();
    await this.checkSecret(parsed.keyId, parsed.secret, found.secret_hash, clientIp);
    if (!merchantEnabled(found.merchant)) throw new AppError('merchant_disabled', 'The merchant is disabled');
    this.stampLastUse(parsed.keyId, found.last_used_at, now);
    return found.merchant;
  }

  /**
   * Stamps the key's last use when a minute has passed since the stored stamp and since this
   * process last wrote one. The write is not awaited: the request never waits for it, and a
   * failed one (the database busy) is tried again by the next request.
   */
  private stampLastUse(keyId: string, stored: string | null, now: Date): void {
    const ms = now.getTime();
    if (stored !== null && ms - Date.parse(stored) < LAST_USED_EVERY_MS) return;
    const mine = this.stamped.get(keyId);
    if (mine !== undefined && ms - mine < LAST_USED_EVERY_MS) return;
    if (this.stamped.size >= LAST_USED_TRACKED) this.stamped.clear();
    this.stamped.set(keyId, ms);
    const olderThan = new Date(ms - LAST_USED_EVERY_MS + 1).toISOString();
    writeTx(this.db, (trx) => touchLastUsed(trx, keyId, now.toISOString(), olderThan)).catch(() =>
      this.stamped.delete(keyId),
    );
  }

  /**
   * Resolves when `secret` is the secret of `keyId` (stored as `secretHash`); 401 otherwise. The
   * bounded hashing of every credential shaped `<prefix>_<id>_<secret>`: the operator console's
   * tokens are checked through it too, on an instance of their own (src/operators/verifier.ts).
   */
  async checkSecret(keyId: string, secret: string, secretHash: string, clientIp: string): Promise<void> {
    const digest = digestOf(secret);
    const known = this.verified.get(keyId);
    if (known && known.secretHash === secretHash && this.clock.now().getTime() - known.at < VERIFIED_FOR_MS) {
      // One key has one secret: another digest is a wrong secret, refused without hashing.
      if (!timingSafeEqual(known.digest, digest)) throw unauthorized();
      return;
    }
    // A client that opens with many parallel requests waits for one verification, not for many
    // (which would also spend its hashing budget and refuse the rest).
    const flight = `${keyId}:${digest.toString('hex')}`;
    let pending = this.inflight.get(flight);
    if (!pending) {
      pending = this.verifyWithHash(keyId, secret, secretHash, digest, clientIp).finally(() =>
        this.inflight.delete(flight),
      );
      this.inflight.set(flight, pending);
    }
    await pending;
  }

  private async verifyWithHash(
    keyId: string,
    secret: string,
    secretHash: string,
    digest: Buffer,
    clientIp: string,
  ): Promise<void> {
    const hex = digest.toString('hex');
    const failed = this.failed.get(keyId);
    if (failed?.has(hex)) throw unauthorized();
    // The process-wide cap is checked before the client's budget is spent, and counted after it.
    const global = this.hashRate.peek('all');
    if (global.remaining === 0) throw this.busy(global.reset);
    const hitAt = this.clock.now().getTime();
    const perIp = this.budgetPerIp.hit(clientIp);
    if (perIp.limited) throw this.budgetSpent(perIp.reset);
    const perKey = this.budgetPerKey.hit(`${clientIp} ${keyId}`);
    if (perKey.limited) throw this.budgetSpent(perKey.reset);
    // A key the server had no capacity to check costs the client nothing: otherwise an owner
    // retrying its right key through a busy spell would end with 429 for it.
    const refund = () => {
      this.budgetPerIp.refund(clientIp, hitAt);
      this.budgetPerKey.refund(`${clientIp} ${keyId}`, hitAt);
    };
    if (this.hashRate.hit('all').limited) {
      refund();
      throw this.busy(global.reset);
    }
    const ok = await this.inHashingSlot(() => argon2.verify(secretHash, secret), refund);
    if (!ok) {
      const set = failed ?? new Set<string>();
      if (set.size >= MAX_REMEMBERED_FAILURES) set.clear();
      set.add(hex);
      this.failed.set(keyId, set);
      this.verified.delete(keyId);
      throw unauthorized();
    }
    this.failed.delete(keyId);
    this.verified.set(keyId, { digest, secretHash, at: this.clock.now().getTime() });
  }

  /**
   * Runs `verify` when one of the hashing slots is free. A full queue, or a turn that does not come
   * within maxQueueWaitMs, is answered 503 at once and `refund` is called; a verification given up
   * that way does not hash when its turn comes.
   */
  private async inHashingSlot(
    verify: () => Promise<boolean>,
    refund: () => void,
    share: HashingShare = {
      limit: this.hashing,
      maxQueue: this.maxQueue,
      busy: (s) => this.busy(s),
      count: () => (this.hashCount += 1),
    },
  ): Promise<boolean> {
    const { limit, maxQueue, busy } = share;
    if (limit.activeCount >= limit.concurrency && limit.pendingCount >= maxQueue) {
      refund();
      throw busy(1);
    }
    let timer: NodeJS.Timeout | undefined;
    let givenUp = false;
    const tooLate = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        givenUp = true;
        refund();
        reject(busy(Math.max(1, Math.ceil(this.maxQueueWaitMs / 1000))));
      }, this.maxQueueWaitMs);
    });
    const turn = limit(async () => {
      clearTimeout(timer);
      if (givenUp) return false;
      share.count();
      return verify();
    });
    try {
      return await Promise.race([turn, tooLate]);
    } finally {
      clearTimeout(timer);
    }
  }

  private busy(retryAfter: number): AppError {
    this.refused.server_busy += 1;
    return hashingBusy(retryAfter);
  }

  private passwordsBusy(retryAfter: number): AppError {
    this.refused.passwords_busy += 1;
    return passwordsBusy(retryAfter);
  }

  private budgetSpent(retryAfter: number): AppError {
    this.refused.client_budget += 1;
    return hashBudgetSpent(retryAfter);
  }
}
