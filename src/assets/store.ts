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
