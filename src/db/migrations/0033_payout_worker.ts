import { sql, type Kysely } from 'kysely';

/**
 * The payout worker (docs/adr/0022-the-payout-worker.md).
 *
 * - New payout columns: the signed transaction (JSON, never a key) with its expiration (ms since
 *   epoch, chain time) stored BEFORE any broadcast; how many times it was signed (event keys of a
 *   re-sign); when it was first signed (hot wallet day limits); its fee_limit (sun); why a queued
 *   payout waits (shown to the operator); the TRX the network burned for it (sun).
 * - `hot_wallet_limits`: the operator's limits per asset on what the worker itself sends (beyond
 *   the merchants' review limits): per payout, per UTC day, and the fee_limit cap (sun) of TRC20 sends.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const add = (name: string, type: 'text' | 'integer', build?: (c: any) => any) =>
    db.schema
      .alterTable('payouts')
      .addColumn(name, type, build ?? ((c) => c))
      .execute();
  await add('signed_tx', 'text');
  await add('tx_expiration', 'integer');
  await add('sign_attempts', 'integer', (c) => c.notNull().defaultTo(0));
  await add('first_signed_at', 'text');
  await add('fee_limit', 'text');
  await add('wait_reason', 'text');
  await add('network_fee', 'text');
  await add('fail_reason', 'text');

  const units = (col: string) =>
    sql`${sql.ref(col)} is null or (${sql.ref(col)} glob '[0-9]*' and ${sql.ref(col)} not glob '*[^0-9]*')`;
  await db.schema
    .createTable('hot_wallet_limits')
    .addColumn('asset', 'text', (c) => c.primaryKey())
    .addColumn('per_payout', 'text', (c) => c.check(units('per_payout')))
    .addColumn('per_day', 'text', (c) => c.check(units('per_day')))
    .addColumn('fee_limit', 'text', (c) => c.check(units('fee_limit')))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('hot_wallet_limits').execute();
  for (const col of [
    'fail_reason',
    'network_fee',
    'wait_reason',
    'fee_limit',
    'first_signed_at',
    'sign_attempts',
    'tx_expiration',
    'signed_tx',
  ]) {
    await db.schema.alterTable('payouts').dropColumn(col).execute();
  }
}
