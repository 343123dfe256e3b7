/**
 * SQL for the merchant ledger. Entries are only ever inserted; the running totals of the last
 * entry of a (merchant, asset) are its balance. Every read is scoped by merchant_id.
 */
import type { Selectable } from 'kysely';
import type { Executor, Tx } from '../db/database.js';
import type { LedgerEntriesTable } from '../db/schema.js';

export type LedgerEntryRow = Selectable<LedgerEntriesTable>;
export type NewLedgerEntry = Omit<LedgerEntryRow, 'id'>;

/** The newest entry of a merchant's asset (its running totals are the balance), if any. */
export async function lastEntry(db: Executor, merchantId: string, asset: string): Promise<LedgerEntryRow | undefined> {
  return db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('asset', '=', asset)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertEntry(db: Tx, row: NewLedgerEntry): Promise<LedgerEntryRow> {
  return db.insertInto('ledger_entries').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The newest entry of every asset a merchant has entries in. */
export async function lastEntries(db: Executor, merchantId: string): Promise<LedgerEntryRow[]> {
  return db
    .selectFrom('ledger_entries as e')
    .selectAll('e')
    .where('e.merchant_id', '=', merchantId)
    .where((eb) =>
      eb(
        'e.seq',
        '=',
        eb
          .selectFrom('ledger_entries as t')
          .select((s) => s.fn.max('t.seq').as('m'))
          .whereRef('t.merchant_id', '=', 'e.merchant_id')
          .whereRef('t.asset', '=', 'e.asset'),
      ),
    )
    .orderBy('e.asset')
    .execute();
}

/** Every entry of a merchant's asset, oldest first (for verification and statements). */
export async function entriesOf(db: Executor, merchantId: string, asset: string): Promise<LedgerEntryRow[]> {
  return db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('asset', '=', asset)
    .orderBy('seq')
    .execute();
}

export async function payoutEntries(db: Executor, merchantId: string, payoutId: string): Promise<LedgerEntryRow[]> {
  return db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('payout_id', '=', payoutId)
    .orderBy('seq')
    .execute();
}

/** The entry booked for a source (`deposit:…`, `correction:…`), if any; source_ref is UNIQUE. */
export async function entryBySource(db: Executor, sourceRef: string): Promise<LedgerEntryRow | undefined> {
  return db.selectFrom('ledger_entries').selectAll().where('source_ref', '=', sourceRef).executeTakeFirst();
}
