import type { Kysely } from 'kysely';

/**
 * `hot_wallet_transfers.contract_type`: the contract type of the transaction a row records. Every
 * transaction the hot wallet's account owns is recorded now, whatever its type (a vote, a freeze,
 * a permission change, a TRC-10 transfer, a contract call with a TRX value), not only its TRX and
 * catalog-token transfers; a row of such an act has no catalog asset (`asset` ''). Null on rows
 * recorded before (TRX and token transfers).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hot_wallet_transfers').addColumn('contract_type', 'text').execute();
}

/** Portable: the schema builder's statement above is PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hot_wallet_transfers').dropColumn('contract_type').execute();
}
