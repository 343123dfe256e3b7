/** SQL for API keys. Listing and revoking are scoped by merchant. */
import type { Executor, Tx } from '../db/database.js';
import type { ApiKeysTable } from '../db/schema.js';
import type { MerchantRow } from '../merchants/store.js';

export type ApiKeyRow = ApiKeysTable;

export async function insertKey(db: Tx, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** Lookup by the public key id, for authentication (the merchant is not known yet). */
export async function findKey(db: Executor, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
}

/** What authentication reads on every request: the key's hash, state and terms, and its merchant. */
export interface KeyWithMerchant {
  secret_hash: string;
  revoked_at: string | null;
  expires_at: string | null;
  allowed_networks: string | null;
  last_used_at: string | null;
  merchant: MerchantRow;
}

/** The key `keyId` with its terms and its merchant: one query, one index search. */
export async function findKeyWithMerchant(db: Executor, keyId: string): Promise<KeyWithMerchant | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('merchants', 'merchants.id', 'api_keys.merchant_id')
    .selectAll('merchants')
    .select([
      'api_keys.secret_hash',
      'api_keys.revoked_at',
      'api_keys.expires_at',
      'api_keys.allowed_networks',
      'api_keys.last_used_at',
    ])
    .where('api_keys.key_id', '=', keyId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { secret_hash, revoked_at, expires_at, allowed_networks, last_used_at, ...merchant } = row;
  return { secret_hash, revoked_at, expires_at, allowed_networks, last_used_at, merchant };
}

/**
 * Stamps the key's last use; only when the stored stamp is older than `olderThan` (or absent), so
 * processes sharing the database write at most once a minute per key between them.
 */
export async function touchLastUsed(db: Tx, keyId: string, at: string, olderThan: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('key_id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', olderThan)]))
    .execute();
}

/** Active keys (not revoked) that expire after `from` and at or before `until`, soonest first. */
export async function keysExpiringBetween(db: Executor, from: string, until: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', from)
    .where('expires_at', '<=', until)
    .orderBy('expires_at')
    .execute();
}

export async function listKeysOf(db: Executor, merchantId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at').execute();
}

export async function markRevoked(db: Tx, keyId: string, at: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('key_id', '=', keyId)
    .where('revoked_at', 'is', null)
    .execute();
}
