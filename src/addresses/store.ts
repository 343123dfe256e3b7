/** SQL for handed-out deposit addresses. Reads are scoped by merchant. */
import type { Executor } from '../db/database.js';
import type { DepositAddressesTable } from '../db/schema.js';

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
