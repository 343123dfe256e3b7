/** SQL for the operator's and the merchants' asset switches. */
import type { Executor, Tx } from '../db/database.js';
import type { AssetSwitchesTable, MerchantAssetSwitchesTable } from '../db/schema.js';

export async function operatorSwitches(db: Executor): Promise<AssetSwitchesTable[]> {
  return db.selectFrom('asset_switches').selectAll().execute();
}

export async function operatorSwitch(db: Executor, asset: string): Promise<AssetSwitchesTable | undefined> {
  return db.selectFrom('asset_switches').selectAll().where('asset', '=', asset).executeTakeFirst();
}

export async function upsertOperatorSwitch(db: Tx, row: AssetSwitchesTable): Promise<void> {
  await db
    .insertInto('asset_switches')
    .values(row)
    .onConflict((oc) =>
      oc.column('asset').doUpdateSet({
        payments_enabled: row.payments_enabled,
        payouts_enabled: row.payouts_enabled,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/**
 * The operator's and the merchant's payments switch of one asset, read in one statement (an
 * invoice creation asks both): null where there is no row, or the operator's row leaves it unset.
 */
export async function paymentSwitches(
  db: Executor,
  merchantId: string,
  asset: string,
): Promise<{ operator: number | null; merchant: number | null }> {
  return db
    .selectNoFrom((eb) => [
      eb.selectFrom('asset_switches').select('payments_enabled').where('asset', '=', asset).as('operator'),
      eb
        .selectFrom('merchant_asset_switches')
        .select('payments_enabled')
        .where('merchant_id', '=', merchantId)
        .where('asset', '=', asset)
        .as('merchant'),
    ])
    .executeTakeFirstOrThrow();
}

export async function merchantSwitches(db: Executor, merchantId: string): Promise<MerchantAssetSwitchesTable[]> {
  return db.selectFrom('merchant_asset_switches').selectAll().where('merchant_id', '=', merchantId).execute();
}

export async function merchantSwitch(
  db: Executor,
  merchantId: string,
  asset: string,
): Promise<MerchantAssetSwitchesTable | undefined> {
  return db
    .selectFrom('merchant_asset_switches')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('asset', '=', asset)
    .executeTakeFirst();
}

export async function upsertMerchantSwitch(db: Tx, row: MerchantAssetSwitchesTable): Promise<void> {
  await db
    .insertInto('merchant_asset_switches')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['merchant_id', 'asset'])
        .doUpdateSet({ payments_enabled: row.payments_enabled, updated_at: row.updated_at }),
    )
    .execute();
}
