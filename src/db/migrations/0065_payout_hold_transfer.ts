import type { Kysely } from 'kysely';

/**
 * `payouts.hold_tx_hash`: the unknown transfer out of the hot wallet whose asset, address and
 * amount a new payout had when it was created, and which holds it (it may be the same intent sent
 * again). That transfer stays one of the payout's candidates although it landed before the payout
 * existed; every other candidate must have landed after.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('payouts').addColumn('hold_tx_hash', 'text').execute();
}

/** Portable: the schema builder's statement above is PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('payouts').dropColumn('hold_tx_hash').execute();
}
