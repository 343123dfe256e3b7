/**
 * Authentication of `X-Api-Key` (DESIGN.md §10). argon2id runs once per key and process; after
 * that the key is trusted from memory: the SHA-256 digest of its verified secret is compared in
 * constant time. The key row is re-read (no hashing) whenever merchants or keys changed (seen at
 * once in this process, within 100 ms from another) and at least every 60 s.
 *
 * Hashing is bounded: an unknown or revoked key id never hashes; once a key is verified, a wrong
 * secret is recognised by digest without hashing; before that, each client IP gets a small hashing
 * budget per minute per key id and overall (so a stranger who knows a key id spends only their own
 * budget, never the key owner's), a secret that already failed is remembered, at most a few
 * hashes run at once (a verification waits at most 2 s for its turn) and at most
 * `hashesPerSecond` start per second in all. A wrong key is always
 * the same 401 (the cause is never stated); a key that could not be checked is never a 401, since
 * it may be right: a client past its own hashing budget gets 429 rate_limited, and when the
 * server's hashing capacity (per second, the queue, or the wait for a turn) is spent the answer is 503
 * service_unavailable (and the client's budget is not charged); both carry Retry-After.
 */
import argon2 from 'argon2';
import { hash } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { AppError } from '../errors.js';
import { findMerchant, type MerchantRow } from '../merchants/store.js';
import { FixedWindowLimiter } from '../http/rate-limit.js';
import { parseApiKey } from './format.js';
import { findKey } from './store.js';

export interface VerifierOptions {
  /** How long a verified key is trusted before its row is read again. */
  trustMs?: number;
  /** argon2 verifications allowed per client IP and key id per minute (key not yet verified). */
  hashBudgetPerKey?: number;
  /** argon2 verifications allowed per client IP per minute, all key ids together. */
  hashBudgetPerIp?: number;
  /** argon2 verifications running at once; more wait in a queue of at most `maxQueue`. */
  maxConcurrentHashes?: number;
  maxQueue?: number;
  /**
   * How long a verification may wait in that queue for a slot; past it the key is answered 503
   * with Retry-After. Admissions (`hashesPerSecond`) can outrun what the CPU hashes, so without
   * this bound a full queue made a right key wait tens of seconds under attack.
   */
  maxQueueWaitMs?: number;
  /** argon2 verifications started per second by all clients together (CPU bound of the process). */
  hashesPerSecond?: number;
  /** Client addresses whose budgets are counted per minute (bounded maps; oldest dropped first). */
  maxClients?: number;
  /** Changes whenever merchants or keys change (Database.authGeneration); cached rows are then re-read. */
  changeMarker?: () => string;
}

interface Verified {
  /** SHA-256 of the verified secret, hex (never the secret itself). */
  digest: string;
  secretHash: string;
  merchantId: string;
  checkedAt: number;
  /** Database change marker when the key row was last read. */
  marker: string;
}

interface CachedMerchant {
  row: MerchantRow;
  marker: string;
  readAt: number;
}

const MAX_REMEMBERED_FAILURES = 32;

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

/**
 * SHA-256 of a secret as hex. One-shot, and a string, not a Buffer: a Buffer's backing store and
 * timingSafeEqual's binding cost ~1.4 µs of the ~2 µs per request in a tight loop, and several
 * times that in the server (external memory the GC tracks), for a comparison of 64 characters.
 */
function digestOf(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/**
 * Equality of two digests in time independent of where they differ: every character is compared,
 * differences accumulated with OR, no early exit. Both are 64 hex characters, so the length check
 * reveals nothing.
 */
function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export class ApiKeyVerifier {
  private readonly verified = new Map<string, Verified>();
  /** Digests of secrets that failed, per key id (bounded), so a repeat costs no hashing. */
  private readonly failed = new Map<string, Set<string>>();
  /** Verifications under way, so concurrent first requests with one key share one hash. */
  private readonly inflight = new Map<string, Promise<string>>();
  private readonly budgetPerKey: FixedWindowLimiter;
  private readonly budgetPerIp: FixedWindowLimiter;
  private readonly hashRate: FixedWindowLimiter;
  private readonly merchants = new Map<string, CachedMerchant>();
  private readonly changeMarker: () => string;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly trustMs: number;
  private readonly maxConcurrent: number;
  private readonly maxQueue: number;
  private readonly maxQueueWaitMs: number;
  /** Count of argon2 verifications done; read by tests, benchmarks and /metrics. */
  hashCount = 0;
  /** Keys left unchecked because the client spent its hashing budget (429) or the server its capacity (503). */
  readonly refused = { client_budget: 0, server_busy: 0 };

  constructor(private readonly db: Db, private readonly clock: Clock, opts: VerifierOptions = {}) {
    this.trustMs = opts.trustMs ?? 60_000;
    const maxClients = opts.maxClients;
    this.budgetPerKey = new FixedWindowLimiter(opts.hashBudgetPerKey ?? 10, clock, { maxClients });
    this.budgetPerIp = new FixedWindowLimiter(opts.hashBudgetPerIp ?? 30, clock, { maxClients });
    this.hashRate = new FixedWindowLimiter(opts.hashesPerSecond ?? 20, clock, { windowMs: 1000 });
    this.maxConcurrent = opts.maxConcurrentHashes ?? 2;
    this.maxQueue = opts.maxQueue ?? 64;
    this.maxQueueWaitMs = opts.maxQueueWaitMs ?? 2_000;
    this.changeMarker = opts.changeMarker ?? (() => '');
  }

  /** The merchant of a valid key; 401 unauthorized or 403 merchant_disabled otherwise. */
  async authenticate(header: string | undefined, clientIp = 'local'): Promise<MerchantRow> {
    const parsed = parseApiKey(header);
    if (!parsed) throw unauthorized();
    const marker = this.changeMarker();
    const merchantId = await this.verifiedMerchantId(parsed.keyId, parsed.secret, marker, clientIp);
    const merchant = await this.merchant(merchantId, marker);
    if (!merchant) throw unauthorized();
    if (merchant.enabled !== 1) throw new AppError('merchant_disabled', 'The merchant is disabled');
    return merchant;
  }

  /**
   * The merchant of a key this process verified, when neither the key row nor the merchant row
   * needs reading again (the common request): no promise, no query. `undefined` whenever anything
   * else applies, a wrong secret included: `authenticate` then decides and answers.
   */
  authenticateFromMemory(header: string | undefined): MerchantRow | undefined {
    const parsed = parseApiKey(header);
    const entry = parsed && this.verified.get(parsed.keyId);
    if (!parsed || !entry) return undefined;
    const marker = this.changeMarker();
    const now = this.clock.now().getTime();
    const merchant = this.merchants.get(entry.merchantId);
    if (!this.fresh(entry.marker, entry.checkedAt, marker, now) || !merchant || !this.fresh(merchant.marker, merchant.readAt, marker, now)) return undefined;
    if (merchant.row.enabled !== 1 || !sameDigest(entry.digest, digestOf(parsed.secret))) return undefined;
    return merchant.row;
  }

  /** A row read at `at` under change marker `seen` may be used now. */
  private fresh(seen: string, at: number, marker: string, now: number): boolean {
    return seen === marker && now - at < this.trustMs;
  }

  /**
   * The merchant row, read again whenever merchants or keys changed (in any process) or the trust
   * window passed; otherwise a request costs no query for it.
   */
  private async merchant(id: string, marker: string): Promise<MerchantRow | undefined> {
    const now = this.clock.now().getTime();
    const cached = this.merchants.get(id);
    if (cached && this.fresh(cached.marker, cached.readAt, marker, now)) return cached.row;
    const row = await findMerchant(this.db, id);
    if (row) this.merchants.set(id, { row, marker, readAt: now });
    else this.merchants.delete(id);
    return row;
  }

  private async verifiedMerchantId(keyId: string, secret: string, marker: string, clientIp: string): Promise<string> {
    const now = this.clock.now().getTime();
    const digest = digestOf(secret);
    let entry = this.verified.get(keyId);
    // Re-read the key row when merchants or keys changed (a revocation from the CLI shows within
    // 100 ms) or the trust window passed; either way no hashing: the verified hash is the same.
    if (entry && !this.fresh(entry.marker, entry.checkedAt, marker, now)) {
      const row = await findKey(this.db, keyId);
      if (!row || row.revoked_at !== null || row.secret_hash !== entry.secretHash) {
        this.verified.delete(keyId);
        entry = undefined;
        if (!row || row.revoked_at !== null) throw unauthorized();
      } else {
        entry.checkedAt = now;
        entry.marker = marker;
      }
    }
    if (entry) {
      // One key has one secret: a different digest is a wrong secret, no hashing needed.
      if (!sameDigest(entry.digest, digest)) throw unauthorized();
      return entry.merchantId;
    }
    // A client that opens with many parallel requests waits for one verification, not for many
    // (which would also spend its hashing budget and refuse the rest). Only requests under the
    // same change marker share one: the key row was read when the verification began, and a
    // request that starts after a revocation must read it again, not wait for that answer.
    const flight = `${keyId}:${marker}:${digest}`;
    let pending = this.inflight.get(flight);
    if (!pending) {
      pending = this.verifyWithHash(keyId, secret, digest, now, marker, clientIp).finally(() => this.inflight.delete(flight));
      this.inflight.set(flight, pending);
    }
    return pending;
  }

  private async verifyWithHash(keyId: string, secret: string, digest: string, now: number, marker: string, clientIp: string): Promise<string> {
    const row = await findKey(this.db, keyId);
    if (!row || row.revoked_at !== null) throw unauthorized();
    const failed = this.failed.get(keyId);
    if (failed?.has(digest)) throw unauthorized();
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
    const ok = await this.withHashSlot(() => argon2.verify(row.secret_hash, secret), refund);
    if (!ok) {
      const set = failed ?? new Set<string>();
      if (set.size >= MAX_REMEMBERED_FAILURES) set.clear();
      set.add(digest);
      this.failed.set(keyId, set);
      throw unauthorized();
    }
    this.failed.delete(keyId);
    this.verified.set(keyId, { digest, secretHash: row.secret_hash, merchantId: row.merchant_id, checkedAt: now, marker });
    return row.merchant_id;
  }

  /** Waits for a hashing slot (handed over by the verification that ends) for at most `ms`. */
  private slotWithin(ms: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const take = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(take);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(this.busy(Math.max(1, Math.ceil(ms / 1000))));
      }, ms);
      this.waiting.push(take);
    });
  }

  private busy(retryAfter: number): AppError {
    this.refused.server_busy += 1;
    return hashingBusy(retryAfter);
  }

  private budgetSpent(retryAfter: number): AppError {
    this.refused.client_budget += 1;
    return hashBudgetSpent(retryAfter);
  }

  /** Runs `fn` in a hashing slot; `refused` is called when no slot is had (queue full or wait too long). */
  private async withHashSlot<T>(fn: () => Promise<T>, refused: () => void): Promise<T> {
    if (this.running >= this.maxConcurrent) {
      if (this.waiting.length >= this.maxQueue) {
        refused();
        throw this.busy(1);
      }
      await this.slotWithin(this.maxQueueWaitMs).catch((e: unknown) => {
        refused();
        throw e;
      });
    }
    this.running += 1;
    this.hashCount += 1;
    try {
      return await fn();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}
