import type { Kysely } from 'kysely';

/**
 * `receipt_emails`: the address a customer leaves on the payment page for the receipt, with the
 * page's language, one per page invoice (a later one replaces it). Kept apart from
 * `page_invoices` so the invoice's terms stay as they were made; the mail is sent from it later.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('receipt_emails')
    .addColumn('invoice_id', 'text', (c) => c.primaryKey().references('page_invoices.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

/** The same table on PostgreSQL. */
export const postgres = up;

/** No `down`: the way back is the backup taken before the upgrade (docs/operations/setup.md, "Upgrades"). */
