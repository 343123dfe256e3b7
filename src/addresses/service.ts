/**
 * Permanent deposit addresses (per_user merchants): one address per (merchant, external_user_id),
 * the same for every asset of the network and forever. The unique index deposit_addresses_user makes
 * "one per user" hold even across processes; the write transaction makes it hold under concurrency.
 */
import type { AssetCatalog } from '../assets/catalog.js';
import { receivableAssets } from '../assets/service.js';
import type { Clock } from '../clock.js';
import { isUniqueViolation, writeTx, type Db, type Tx } from '../db/database.js';
import { AppError } from '../errors.js';
import type { MerchantRow } from '../merchants/store.js';
import type { DepositAddressAllocator, ReservedAddress } from './allocator.js';
import { findUserAddress, type DepositAddressRow } from './store.js';

export interface AddressDeps {
  db: Db;
  clock: Clock;
  catalog: AssetCatalog;
  allocator: DepositAddressAllocator;
}

export interface PermanentAddressView {
  address: string;
  network: 'tron';
  assets: string[];
}

/** The user's permanent address, allocating it on first use (call inside a write transaction). */
export async function userAddress(
  trx: Tx,
  allocator: DepositAddressAllocator,
  merchantId: string,
  externalUserId: string,
  now: string,
  reserved: ReservedAddress | null,
): Promise<DepositAddressRow> {
  const existing = await findUserAddress(trx, merchantId, externalUserId);
  if (existing) return existing;
  // Null only when the address was read before the transaction, and a permanent address stays.
  if (!reserved) throw new Error('no deposit address was reserved for a user without one');
  return allocator.allocate(trx, reserved, merchantId, externalUserId, now);
}

export function assertApproved(m: MerchantRow): void {
  if (m.approval !== 'approved') {
    throw new AppError(
      'merchant_not_approved',
      m.approval === 'rejected'
        ? 'The project was rejected and cannot accept payments'
        : 'The project is not approved yet and cannot accept payments',
    );
  }
}

/** `merchant` is the row authentication read for this request (fresh, enabled). */
export async function permanentAddress(
  deps: AddressDeps,
  merchant: MerchantRow,
  externalUserId: string,
): Promise<PermanentAddressView> {
  const { db } = deps;
  const merchantId = merchant.id;
  assertApproved(merchant);
  if (merchant.address_mode !== 'per_user') {
    throw new AppError(
      'address_mode_mismatch',
      'Permanent addresses exist only for merchants in per_user address mode',
    );
  }
  const existing = await findUserAddress(db, merchantId, externalUserId);
  const row = existing ?? (await createUserAddress(deps, merchantId, externalUserId));
  return { address: row.address, network: 'tron', assets: await receivableAssets(db, deps.catalog, merchantId) };
}

async function createUserAddress(
  deps: AddressDeps,
  merchantId: string,
  externalUserId: string,
): Promise<DepositAddressRow> {
  // As an invoice creation: the address is reserved before the transaction, the unique (merchant,
  // user) index decides a race, and the loser of a race reads the winner's address.
  const reserved = await deps.allocator.reserve(deps.db);
  try {
    return await writeTx(
      deps.db,
      (trx) => userAddress(trx, deps.allocator, merchantId, externalUserId, deps.clock.now().toISOString(), reserved),
      { rowLocks: true },
    );
  } catch (e) {
    if (!isUniqueViolation(e, 'deposit_addresses', ['merchant_id', 'external_user_id'])) throw e;
    const winner = await findUserAddress(deps.db, merchantId, externalUserId);
    if (!winner) throw e;
    return winner;
  }
}
