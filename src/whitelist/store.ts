/** SQL for whitelist entries. Merchant-facing reads are scoped by merchant_id. */
import type { Executor, Tx } from '../db/database.js';
import { afterKey } from '../db/keyset.js';
import type { WhitelistEntriesTable } from '../db/schema.js';
import type { PageRequest } from '../http/pagination.js';

export type WhitelistEntryRow = WhitelistEntriesTable;

/** The live (not removed) entry of a merchant, asset and address. */
export async function liveEntry(
  db: Executor,
  merchantId: string,
  asset: string,
  address: string,
): Promise<WhitelistEntryRow | undefined> {
  return db
    .selectFrom('whitelist_entries')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('asset', '=', asset)
    .where('address', '=', address)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

export async function insertEntry(db: Tx, row: WhitelistEntryRow): Promise<void> {
  await db.insertInto('whitelist_entries').values(row).execute();
}

/** A live entry's first use, moved later (a longer delay, service.ts); never earlier. */
export async function setUsableFrom(db: Tx, id: string, usableFrom: string): Promise<void> {
  await db
    .updateTable('whitelist_entries')
    .set({ usable_from: usableFrom })
    .where('id', '=', id)
    .where('removed_at', 'is', null)
    .where('usable_from', '<', usableFrom)
    .execute();
}

export async function markRemoved(db: Tx, id: string, at: string, by: string): Promise<void> {
  await db
    .updateTable('whitelist_entries')
    .set({ removed_at: at, removed_by: by })
    .where('id', '=', id)
    .where('removed_at', 'is', null)
    .execute();
}

export interface ListFilter {
  merchantId?: string;
  asset?: string;
  includeRemoved?: boolean;
  /** One page, newest first (the console); without it every entry, oldest first. */
  page?: PageRequest;
}

export async function listEntries(db: Executor, f: ListFilter): Promise<WhitelistEntryRow[]> {
  let q = db.selectFrom('whitelist_entries').selectAll();
  if (f.merchantId) q = q.where('merchant_id', '=', f.merchantId);
  if (f.asset) q = q.where('asset', '=', f.asset);
  if (!f.includeRemoved) q = q.where('removed_at', 'is', null);
  if (!f.page) return q.orderBy('created_at').orderBy('id').execute();
  const after = f.page.after;
  if (after) q = q.where((eb) => afterKey(eb, 'created_at', 'id', after, 'desc'));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.page.limit).execute();
}
