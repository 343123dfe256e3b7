/** SQL for handed-out deposit addresses. Reads are scoped by merchant. */
import type { Executor } from '../db/database.js';
import { prepare } from '../db/prepared.js';
import type { DepositAddressesTable } from '../db/schema.js';

export type DepositAddressRow = DepositAddressesTable;

const COLUMNS = ['address', 'derivation_index', 'merchant_id', 'external_user_id', 'created_at'] as const;
// Every per-invoice creation inserts one: built once (db/prepared.ts).
const insert = prepare(COLUMNS, (db, p) => db.insertInto('deposit_addresses').values({ address: p('address'), derivation_index: p('derivation_index'), merchant_id: p('merchant_id'), external_user_id: p('external_user_id'), created_at: p('created_at') }));

/**
 * The search an insert of `address` makes in the index of addresses (its uniqueness): the pool
 * reads it ahead of each creation on the checkpointer's thread (db/checkpointer.ts), so that the
 * insert finds its leaf page in the OS cache.
 */
export const addressSearch = prepare(['address'], (db, p) => db.selectFrom('deposit_addresses').select('derivation_index').where('address', '=', p('address')));

export async function insertDepositAddress(db: Executor, row: DepositAddressRow): Promise<void> {
  await insert.run(db, row);
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
export async function isOwnAddress(db: Executor, address: string): Promise<boolean> {
  if ((await findDepositAddresses(db, [address])).length > 0) return true;
  const wallet = await db.selectFrom('wallet').select('hot_address').executeTakeFirst();
  return wallet?.hot_address === address;
}

/** The deposit addresses among `addresses` (base58), by primary key: the watcher's confirmation of prefix hits. */
export async function findDepositAddresses(db: Executor, addresses: string[]): Promise<Pick<DepositAddressRow, 'address' | 'merchant_id' | 'external_user_id'>[]> {
  if (addresses.length === 0) return [];
  return db.selectFrom('deposit_addresses').select(['address', 'merchant_id', 'external_user_id']).where('address', 'in', addresses).execute();
}

/**
 * Every address handed out after derivation index `after`, in index order: the watch list's first
 * load, whose worker thread runs this SQL on a connection of its own (workers/watchlist-loader.ts).
 */
export const everyAddressAfter = prepare(['after'], (db, p) =>
  db.selectFrom('deposit_addresses').select(['address', 'derivation_index']).where('derivation_index', '>', p('after')).orderBy('derivation_index'),
);
