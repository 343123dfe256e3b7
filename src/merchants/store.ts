/** SQL for merchants. Operator-level: merchant rows are not owned by another merchant. */
import type { Executor } from '../db/database.js';
import type { MerchantsTable } from '../db/schema.js';

export type MerchantRow = MerchantsTable;

export async function insertMerchant(db: Executor, row: MerchantRow): Promise<void> {
  await db.insertInto('merchants').values(row).execute();
}

export async function findMerchant(db: Executor, id: string): Promise<MerchantRow | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listMerchants(db: Executor): Promise<MerchantRow[]> {
  return db.selectFrom('merchants').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function updateMerchant(
  db: Executor,
  id: string,
  patch: Partial<Omit<MerchantRow, 'id' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('merchants').set(patch).where('id', '=', id).execute();
}
