/** SQL for the wallet row and its deposit index counter. */
import type { Executor, Tx } from '../db/database.js';
import type { WalletTable } from '../db/schema.js';

export type WalletRow = WalletTable;

export async function findWallet(db: Executor): Promise<WalletRow | undefined> {
  return db.selectFrom('wallet').selectAll().where('id', '=', 1).executeTakeFirst();
}

export async function insertWallet(db: Tx, row: Omit<WalletRow, 'id' | 'next_index'>): Promise<void> {
  await db
    .insertInto('wallet')
    .values({ ...row, id: 1, next_index: 0 })
    .execute();
}

/**
 * Takes the next derivation index (call inside a write transaction). Returns null when `limit` is
 * reached. The counter only grows, so an index is never handed out twice, even if a row that used
 * it were later lost.
 */
export async function takeNextIndex(db: Tx, limit: number): Promise<number | null> {
  const row = await db
    .updateTable('wallet')
    .set((eb) => ({ next_index: eb('next_index', '+', 1) }))
    .where('id', '=', 1)
    .where('next_index', '<', limit)
    .returning('next_index')
    .executeTakeFirst();
  return row ? row.next_index - 1 : null;
}
