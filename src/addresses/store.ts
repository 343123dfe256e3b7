/** SQL for handed-out deposit addresses. Reads are scoped by merchant. */
import type { Executor, Tx } from '../db/database.js';
import { findUnattributedAddresses } from '../restore/derivation-gap.js';
import type { DepositAddressesTable } from '../db/schema.js';

export type DepositAddressRow = DepositAddressesTable;

export async function insertDepositAddress(db: Tx, row: DepositAddressRow): Promise<void> {
  await db.insertInto('deposit_addresses').values(row).execute();
}

export async function findUserAddress(
  db: Executor,
  merchantId: string,
  externalUserId: string,
): Promise<DepositAddressRow | undefined> {
  return db
    .selectFrom('deposit_addresses')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('external_user_id', '=', externalUserId)
    .executeTakeFirst();
}

export async function countDepositAddresses(db: Executor): Promise<number> {
  const r = await db
    .selectFrom('deposit_addresses')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Whether `address` belongs to this gateway (a deposit address, an address of a restore's gap, or
 * the hot wallet). A payout there
 * would move money to ourselves, and the watcher never counts a transfer from the hot wallet as a
 * deposit (it may be the sweeper's TRX top-up): it would be credited to no one.
 */
export async function isOwnAddress(db: Executor, address: string): Promise<boolean> {
  if (
    (await findDepositAddresses(db, [address])).length > 0 ||
    (await findUnattributedAddresses(db, [address])).length > 0
  )
    return true;
  return (await hotWalletAddress(db)) === address;
}

/** The hot wallet's address; null before the wallet is initialised. */
export async function hotWalletAddress(db: Executor): Promise<string | null> {
  const wallet = await db.selectFrom('wallet').select('hot_address').where('id', '=', 1).executeTakeFirst();
  return wallet?.hot_address ?? null;
}

/** Addresses per `in (…)` query, well under SQLite's limit on bound parameters (32,766). */
const LOOKUP_CHUNK = 500;

/** The deposit addresses among `addresses` (base58), each found through the unique index on the address. */
export async function findDepositAddresses(db: Executor, addresses: readonly string[]): Promise<DepositAddressRow[]> {
  const found: DepositAddressRow[] = [];
  for (let i = 0; i < addresses.length; i += LOOKUP_CHUNK) {
    found.push(
      ...(await db
        .selectFrom('deposit_addresses')
        .selectAll()
        .where('address', 'in', addresses.slice(i, i + LOOKUP_CHUNK))
        .execute()),
    );
  }
  return found;
}
