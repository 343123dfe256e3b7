/** Operator tasks on API keys: issue (shown once), revoke, list. The clear key is never stored. */
import argon2 from 'argon2';
import { recordAudit } from '../audit/store.js';
import { systemClock, type Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import { AppError } from '../errors.js';
import {
  changeMerchant,
  createMerchant,
  requireMerchant,
  type CreateMerchantInput,
  type MerchantView,
} from '../merchants/service.js';
import { generateApiKey, isKeyId } from './format.js';
import { findKey, insertKey, keysExpiringBetween, listKeysOf, markRevoked, type ApiKeyRow } from './store.js';
import { networksOf, parseKeyTerms, storedNetworks, termsStatus, type KeyTermsInput } from './terms.js';

/**
 * argon2id at OWASP's first recommended setting (19 MiB, t=2, p=1), paid once per key and process.
 * The secret is 32 random bytes, so the hash's cost never decides whether a leaked hash can be
 * reversed; what the memory cost does decide is the server's memory: each verification in flight
 * holds it (the library default, 64 MiB, put the server past its memory target at first use).
 * Keys issued with the older parameters still verify: argon2 reads them from the stored hash.
 */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export interface KeyView {
  key_id: string;
  merchant_id: string;
  /** expired: past expires_at (refused like a revoked key); revoked wins over expired. */
  status: 'active' | 'expired' | 'revoked';
  label: string | null;
  created_at: string;
  /** From this moment the key is refused; null: it does not expire. */
  expires_at: string | null;
  /** CIDRs requests may come from; null: any client address. */
  allowed_networks: string[] | null;
  /** The last authenticated request, to the minute (written at most once a minute); null: never used. */
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface IssuedKey extends KeyView {
  /** The whole key. Printed once; it cannot be recovered later. */
  api_key: string;
}

export function keyView(k: ApiKeyRow, now: Date): KeyView {
  return {
    key_id: k.key_id,
    merchant_id: k.merchant_id,
    status: termsStatus(k, now),
    label: k.label,
    created_at: k.created_at,
    expires_at: k.expires_at,
    allowed_networks: networksOf(k.allowed_networks),
    last_used_at: k.last_used_at,
    revoked_at: k.revoked_at,
  };
}

/** argon2id cost parameters; verification reads them back from the stored hash. */
export interface HashCost {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/**
 * Issues a key with its terms (label, expiry, allowed networks; `invalid_argument` for bad ones,
 * before anything is written). `cost` exists for tests only (cheap keys keep the suite fast; the
 * verifier reads the parameters from the stored hash): the CLI and the server always use
 * ARGON2_OPTIONS.
 */
export async function issueKey(
  db: Db,
  clock: Clock,
  actor: string,
  merchantId: string,
  cost?: HashCost,
  terms: KeyTermsInput = {},
): Promise<IssuedKey> {
  const now = clock.now();
  const t = parseKeyTerms(terms, now);
  await requireMerchant(db, merchantId);
  const key = generateApiKey();
  // Hash before the transaction: no slow work while holding the write lock.
  const secretHash = await argon2.hash(key.secret, { ...ARGON2_OPTIONS, ...cost });
  const row: ApiKeyRow = {
    key_id: key.keyId,
    merchant_id: merchantId,
    secret_hash: secretHash,
    created_at: now.toISOString(),
    revoked_at: null,
    label: t.label,
    expires_at: t.expires_at,
    allowed_networks: storedNetworks(t.allowed_networks),
    last_used_at: null,
  };
  await writeTx(db, async (trx) => {
    await requireMerchant(trx, merchantId);
    await insertKey(trx, row);
    await recordAudit(trx, clock, {
      actor,
      action: 'api_key.issue',
      subjectType: 'api_key',
      subjectId: key.keyId,
      merchantId,
      details: { label: t.label, expires_at: t.expires_at, allowed_networks: t.allowed_networks },
    });
  });
  return { ...keyView(row, now), api_key: key.apiKey };
}

/**
 * Revokes a key; every process refuses it from its next request (the key row is read with each
 * request, keys/verifier.ts). With `merchantId` (the console names the merchant in the path) a
 * key of another merchant is api_key_not_found, as an absent one.
 */
export async function revokeKey(
  db: Db,
  clock: Clock,
  actor: string,
  given: string,
  merchantId?: string,
): Promise<KeyView> {
  // Key ids are stored in lower case: an upper-case copy names the same key (as merchant and
  // payout ids do); refusing it left a key the operator meant to revoke working.
  const keyId = /^[0-9a-fA-F]{16}$/.test(given) ? given.toLowerCase() : given;
  if (!isKeyId(keyId)) throw new AppError('api_key_not_found', `API key ${keyId} does not exist`);
  return writeTx(db, async (trx) => {
    if (merchantId !== undefined) await requireMerchant(trx, merchantId);
    const row = await findKey(trx, keyId);
    if (!row || (merchantId !== undefined && row.merchant_id !== merchantId))
      throw new AppError('api_key_not_found', `API key ${keyId} does not exist`);
    const at = clock.now().toISOString();
    if (!row.revoked_at) {
      await markRevoked(trx, keyId, at);
      await recordAudit(trx, clock, {
        actor,
        action: 'api_key.revoke',
        subjectType: 'api_key',
        subjectId: keyId,
        merchantId: row.merchant_id,
      });
    }
    return keyView({ ...row, revoked_at: row.revoked_at ?? at }, clock.now());
  });
}

/** A merchant's keys, oldest first; `clock` says which have expired (default: the system clock). */
export async function listKeys(db: Db, merchantId: string, clock: Clock = systemClock): Promise<KeyView[]> {
  await requireMerchant(db, merchantId);
  const now = clock.now();
  return (await listKeysOf(db, merchantId)).map((k) => keyView(k, now));
}

/** How far ahead a key's expiry is announced: a warning in the log and the metric. */
export const EXPIRY_NOTICE_MS = 7 * 86_400_000;

/** Active keys that expire within the notice period (EXPIRY_NOTICE_MS), soonest first. */
export async function keysExpiringSoon(db: Executor, clock: Clock): Promise<KeyView[]> {
  const now = clock.now();
  const until = new Date(now.getTime() + EXPIRY_NOTICE_MS).toISOString();
  return (await keysExpiringBetween(db, now.toISOString(), until)).map((k) => keyView(k, now));
}

/** An approved merchant with one API key: what the demo, the benchmarks and tests start from. */
export async function approvedMerchantWithKey(
  db: Db,
  clock: Clock,
  actor: string,
  input: CreateMerchantInput,
): Promise<{ merchant: MerchantView; apiKey: string }> {
  const created = await createMerchant(db, clock, actor, input);
  const merchant = await changeMerchant(db, clock, actor, created.merchant_id, 'approve');
  return { merchant, apiKey: (await issueKey(db, clock, actor, merchant.merchant_id)).api_key };
}
