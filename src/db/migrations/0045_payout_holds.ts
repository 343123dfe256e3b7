import type { Kysely } from 'kysely';

/**
 * `payouts.hold_reason`: why the payout worker must not sign this payout until the operator
 * decides (`payout approve` sends it, `payout cancel` releases it). `paygate restore` sets it on
 * the payouts a backup shows unfinished: they may have been signed after the backup was taken.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('payouts').addColumn('hold_reason', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('payouts').dropColumn('hold_reason').execute();
}
