/** SQL for handed-out deposit addresses. Reads are scoped by merchant. */
import type { Executor } from '../db/database.js';
import type { DepositAddressesTable } from '../db/schema.js';
import type { DepositAddressDirectory } from './directory.js';

export type DepositAddressRow = DepositAddressesTable;

export async function insertDepositAddress(db: Executor, row: DepositAddressRow): Promise<void> {
  await db.insertInto('deposit_addresses').values(row).execute();
}

export async function findUserAddress(db: Executor, merchantId: string, externalUserId: string): Promise<DepositAddressRow | undefined> {
  return db
    .selectFrom('deposit_addresses')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('external_user_id', '=', externalUserId)
    .executeTakeFirst();
}

export async function countDepositAddresses(db: Executor): Promise<number> {
  const r = await db.selectFrom('deposit_addresses').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The next `limit` addresses handed out after derivation index `after`, in index order (the watcher's load). */
export async function addressesAfter(db: Executor, after: number, limit: number): Promise<Pick<DepositAddressRow, 'address' | 'derivation_index'>[]> {
  return db.selectFrom('deposit_addresses').select(['address', 'derivation_index']).where('derivation_index', '>', after).orderBy('derivation_index').limit(limit).execute();
}

/**
 * Whether `address` belongs to this gateway (a deposit address or the hot wallet). A payout there
 * would move money to ourselves, and the watcher never counts a transfer from the hot wallet as a
 * deposit (it may be the sweeper's TRX top-up): it would be credited to no one.
 */
export async function isOwnAddress(db: Executor, address: string, directory?: DepositAddressDirectory): Promise<boolean> {
  if ((await findDepositAddresses(db, [address], directory)).length > 0) return true;
  const wallet = await db.selectFrom('wallet').select('hot_address').executeTakeFirst();
  return wallet?.hot_address === address;
}

/**
 * The deposit addresses among `addresses` (base58). The table has no index on the address
 * (migration 0041): `serve` finds them through its directory (directory.ts); without one (the
 * CLI's rare checks) the table is scanned, ~150 ms for 1.3 million addresses.
 */
export async function findDepositAddresses(db: Executor, addresses: readonly string[], directory?: DepositAddressDirectory): Promise<DepositAddressRow[]> {
  if (addresses.length === 0) return [];
  if (directory) return directory.find(db, addresses);
  return db.selectFrom('deposit_addresses').selectAll().where('address', 'in', [...addresses]).execute();
}

/** The deposit addresses at these derivation indexes (the primary key). */
export async function depositAddressesAt(db: Executor, indexes: readonly number[]): Promise<DepositAddressRow[]> {
  if (indexes.length === 0) return [];
  return db.selectFrom('deposit_addresses').selectAll().where('derivation_index', 'in', [...indexes]).execute();
}

/**
 * Every address handed out after derivation index `after`, in index order: the watch list's first
 * load, whose worker thread runs this SQL on a connection of its own (workers/watchlist-loader.ts).
 * The same query as addressesAfter without its LIMIT.
 */
export const everyAddressAfter = {
  sql: 'select "address", "derivation_index" from "deposit_addresses" where "derivation_index" > ? order by "derivation_index"',
  params: (values: { after: number }): unknown[] => [values.after],
};
