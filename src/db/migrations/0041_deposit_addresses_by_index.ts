import type { Kysely } from 'kysely';

/**
 * Changes nothing. A database that applied an earlier version of this migration has deposit
 * addresses keyed by their derivation index without a unique index on the address, and invoices
 * without their foreign key on the address; one that did not has the tables as 0040 left them.
 * Migration 0042 rebuilds both tables, so either way every database ends at the same schema.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
