/** SQL for merchants. Operator-level: merchant rows are not owned by another merchant. */
import type { Executor, Tx } from '../db/database.js';
import { afterKey } from '../db/keyset.js';
import type { MerchantsTable } from '../db/schema.js';
import type { PageRequest } from '../http/pagination.js';

export type MerchantRow = MerchantsTable;

export async function insertMerchant(db: Tx, row: MerchantRow): Promise<void> {
  await db.insertInto('merchants').values(row).execute();
}

export async function findMerchant(db: Executor, id: string): Promise<MerchantRow | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every merchant, oldest first; or one page of them, newest first (the console's lists). */
export async function listMerchants(db: Executor, page?: PageRequest): Promise<MerchantRow[]> {
  if (!page) return db.selectFrom('merchants').selectAll().orderBy('created_at').orderBy('id').execute();
  const after = page.after;
  let q = db.selectFrom('merchants').selectAll();
  if (after) q = q.where((eb) => afterKey(eb, 'created_at', 'id', after, 'desc'));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
}

export async function updateMerchant(
  db: Tx,
  id: string,
  patch: Partial<Omit<MerchantRow, 'id' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('merchants').set(patch).where('id', '=', id).execute();
}
