/**
 * Which assets can be received and paid out now: the catalog's defaults, the operator's switches
 * (`asset set`, refused for locked flags) and each merchant's own receiving switch
 * (`merchant asset`). The checks used by invoice creation and permanent addresses live here.
 */
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import type { AssetSwitchesTable } from '../db/schema.js';
import { AppError } from '../errors.js';
import { requireMerchant } from '../merchants/service.js';
import { formatAmount } from '../money.js';
import { ASSET_FLAGS, type AssetCatalog, type AssetFlag, type CatalogAsset } from './catalog.js';
import {
  merchantSwitches,
  operatorSwitch,
  operatorSwitches,
  paymentSwitches,
  upsertMerchantSwitch,
  upsertOperatorSwitch,
} from './store.js';

export interface AssetView {
  asset: string;
  symbol: string;
  name: string;
  network: 'tron';
  type: 'trc20' | 'native';
  contract: string | null;
  decimals: number;
  minimum_deposit: string;
  payments: boolean;
  payouts: boolean;
  receive_only: boolean;
  locked: AssetFlag[];
}

export function effective(
  a: CatalogAsset,
  sw: Partial<Pick<AssetSwitchesTable, 'payments_enabled' | 'payouts_enabled'>> | undefined,
  flag: AssetFlag,
): boolean {
  const stored = sw?.[`${flag}_enabled`];
  if (a.locked.has(flag) || stored === null || stored === undefined) return a[flag];
  return stored === 1;
}

function view(a: CatalogAsset, sw: AssetSwitchesTable | undefined): AssetView {
  return {
    asset: a.code,
    symbol: a.symbol,
    name: a.name,
    network: 'tron',
    type: a.type,
    contract: a.contract,
    decimals: a.decimals,
    minimum_deposit: formatAmount(a.minimumDeposit, a.decimals),
    payments: effective(a, sw, 'payments'),
    payouts: effective(a, sw, 'payouts'),
    receive_only: a.receiveOnly,
    locked: ASSET_FLAGS.filter((f) => a.locked.has(f)),
  };
}

export async function listAssets(db: Executor, catalog: AssetCatalog): Promise<AssetView[]> {
  const switches = new Map((await operatorSwitches(db)).map((s) => [s.asset, s]));
  return catalog.assets.map((a) => view(a, switches.get(a.code)));
}

/** One asset of the catalog with the switches in force; asset_not_found outside the catalog. */
export async function showAsset(db: Executor, catalog: AssetCatalog, code: string): Promise<AssetView> {
  const a = requireCatalogAsset(catalog, code);
  return view(a, await operatorSwitch(db, code));
}

export function requireCatalogAsset(catalog: AssetCatalog, code: string): CatalogAsset {
  const a = catalog.get(code);
  if (!a) throw new AppError('asset_not_found', `Asset ${code} is not in the ${catalog.network} catalog`);
  return a;
}

export async function setAssetFlags(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  code: string,
  flags: Partial<Record<AssetFlag, boolean>>,
): Promise<AssetView> {
  const a = requireCatalogAsset(catalog, code);
  const given = ASSET_FLAGS.filter((f) => flags[f] !== undefined);
  if (given.length === 0) throw new AppError('invalid_argument', 'Give --payments on|off and/or --payouts on|off');
  for (const f of given) {
    // Setting a locked flag to the value it is locked at changes nothing and is allowed.
    if (a.locked.has(f) && flags[f] !== a[f]) {
      throw new AppError(
        'asset_flag_locked',
        `The catalog does not allow switching ${f} of ${code} (locked ${a[f] ? 'on' : 'off'})`,
      );
    }
  }
  return writeTx(db, async (trx) => {
    const before = await operatorSwitch(trx, code);
    const row: AssetSwitchesTable = {
      asset: code,
      payments_enabled: flags.payments === undefined ? (before?.payments_enabled ?? null) : Number(flags.payments),
      payouts_enabled: flags.payouts === undefined ? (before?.payouts_enabled ?? null) : Number(flags.payouts),
      updated_at: clock.now().toISOString(),
    };
    await upsertOperatorSwitch(trx, row);
    await recordAudit(trx, clock, {
      actor,
      action: 'asset.set',
      subjectType: 'asset',
      subjectId: code,
      details: { ...flags },
    });
    return view(a, row);
  });
}

export interface MerchantAssetView {
  merchant_id: string;
  asset: string;
  payments: boolean;
}

export async function setMerchantAsset(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  merchantId: string,
  code: string,
  payments: boolean,
): Promise<MerchantAssetView> {
  const a = catalog.get(code);
  // The merchant's switch exists only for what can be received: as invoice creation answers.
  if (!a || (a.locked.has('payments') && !a.payments))
    throw new AppError('asset_not_supported', `Asset ${code} is not accepted for payment`);
  return writeTx(db, async (trx) => {
    await requireMerchant(trx, merchantId);
    await upsertMerchantSwitch(trx, {
      merchant_id: merchantId,
      asset: code,
      payments_enabled: Number(payments),
      updated_at: clock.now().toISOString(),
    });
    await recordAudit(trx, clock, {
      actor,
      action: 'merchant.asset',
      subjectType: 'merchant',
      subjectId: merchantId,
      merchantId,
      details: { asset: code, payments },
    });
    return { merchant_id: merchantId, asset: code, payments };
  });
}

/**
 * The receiving checks of invoice creation, in the order the errors are documented:
 * unknown or never payable → asset_not_supported; operator switch off → asset_payments_disabled;
 * merchant switch off → asset_disabled_by_merchant.
 */
export async function assertReceivable(
  db: Executor,
  catalog: AssetCatalog,
  merchantId: string,
  code: string,
): Promise<CatalogAsset> {
  const a = catalog.get(code);
  if (!a || (a.locked.has('payments') && !a.payments))
    throw new AppError('asset_not_supported', `Asset ${code} is not accepted for payment`);
  const switches = await paymentSwitches(db, merchantId, code);
  if (!effective(a, { payments_enabled: switches.operator }, 'payments')) {
    throw new AppError('asset_payments_disabled', `Receiving ${code} is temporarily switched off`);
  }
  if (switches.merchant === 0)
    throw new AppError('asset_disabled_by_merchant', `Receiving ${code} is switched off in the project settings`);
  return a;
}

/** The assets a merchant receives now (operator on and merchant not off), in catalog order. */
export async function receivableAssets(db: Executor, catalog: AssetCatalog, merchantId: string): Promise<string[]> {
  const switches = new Map((await operatorSwitches(db)).map((s) => [s.asset, s]));
  const mine = new Map((await merchantSwitches(db, merchantId)).map((s) => [s.asset, s.payments_enabled]));
  return catalog.assets
    .filter((a) => effective(a, switches.get(a.code), 'payments') && mine.get(a.code) !== 0)
    .map((a) => a.code);
}
