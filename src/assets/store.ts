/** SQL for the operator's and the merchants' asset switches. */
import type { Executor, Tx } from '../db/database.js';
import { reusableQuery } from '../db/reusable.js';
import type { AssetSwitchesTable, MerchantAssetSwitchesTable } from '../db/schema.js';

export async function operatorSwitches(db: Executor): Promise<AssetSwitchesTable[]> {
  return db.selectFrom('asset_switches').selectAll().execute();
}

const operatorSwitchOf = reusableQuery((db, p: { asset: string }) =>
  db.selectFrom('asset_switches').selectAll().where('asset', '=', p.asset),
);

export async function operatorSwitch(db: Executor, asset: string): Promise<AssetSwitchesTable | undefined> {
  return (await operatorSwitchOf(db, { asset }))[0];
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

const merchantSwitchOf = reusableQuery((db, p: { merchantId: string; asset: string }) =>
  db
    .selectFrom('merchant_asset_switches')
    .selectAll()
    .where('merchant_id', '=', p.merchantId)
    .where('asset', '=', p.asset),
);

export async function merchantSwitch(
  db: Executor,
  merchantId: string,
  asset: string,
): Promise<MerchantAssetSwitchesTable | undefined> {
  return (await merchantSwitchOf(db, { merchantId, asset }))[0];
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
