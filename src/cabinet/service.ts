/**
 * What an owner sees and changes of their merchants. The merchant comes already owned (the hook
 * of ownership.ts resolved it from the session); a change checks again, in its transaction, that
 * the account still owns it. Changes go through the merchants' and assets' own service functions
 * (the ones `paygate merchant …` runs), with the owner as the audit log's actor.
 */
import { effective } from '../assets/service.js';
import { merchantSwitches, operatorSwitches } from '../assets/store.js';
import { setMerchantAsset } from '../assets/service.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError } from '../errors.js';
import { balanceView } from '../ledger/operator.js';
import { balances } from '../ledger/service.js';
import { clearLegacyNetworkFeePayer, setOwnerSwitch } from '../merchants/service.js';
import type { MerchantRow } from '../merchants/store.js';
import { disabledBy, merchantEnabled } from '../merchants/switches.js';
import { merchantsOfOwner, ownedMerchant, type OwnerRow } from '../owners/store.js';
import type { Services } from '../services.js';
import { ownerActor } from './context.js';
import { merchantNotFound } from './ownership.js';
import { ownerPayoutLimits, webhookOf } from './settings.js';
import type { MerchantSchema } from './schema.js';
import type { CabinetSession } from './sessions.js';

export async function accountView(db: Db, owner: OwnerRow) {
  const merchants = await merchantsOfOwner(db, owner.id);
  return {
    email: owner.email,
    totp: owner.totp_enabled === 1,
    merchants: merchants.map((m) => ({
      merchant_id: m.id,
      name: m.name,
      approval: m.approval,
      enabled: merchantEnabled(m),
      disabled_by: disabledBy(m),
      role: m.role,
    })),
  };
}

type AssetDeps = Pick<Services, 'db' | 'catalog' | 'config'>;
type ViewDeps = AssetDeps & Pick<Services, 'clock'>;

/** The catalog's receivable assets with the merchant's own switch and the operator's. */
async function merchantAssets(deps: AssetDeps, merchantId: string): Promise<MerchantSchema['assets']> {
  const operator = new Map((await operatorSwitches(deps.db)).map((s) => [s.asset, s]));
  const mine = new Map((await merchantSwitches(deps.db, merchantId)).map((s) => [s.asset, s.payments_enabled]));
  return deps.catalog.assets
    .filter((a) => !(a.locked.has('payments') && !a.payments))
    .map((a) => ({
      asset: a.code,
      name: a.name,
      payments: mine.get(a.code) !== 0,
      offered: effective(a, operator.get(a.code), 'payments'),
      usd_pegged: a.usdPegged,
    }));
}

export async function merchantOwnerView(deps: ViewDeps, m: MerchantRow): Promise<MerchantSchema> {
  return {
    merchant_id: m.id,
    name: m.name,
    approval: m.approval,
    enabled: merchantEnabled(m),
    disabled_by: disabledBy(m),
    address_mode: m.address_mode,
    settings: {
      site_url: m.site_url,
      return_url: m.return_url,
      cancel_url: m.cancel_url,
      confirmations: m.confirmations ?? deps.config.confirmations,
      network_fee_payer: m.legacy_network_fee_payer === 'customer' ? 'customer' : 'merchant',
    },
    assets: await merchantAssets(deps, m.id),
    payout_limits: await ownerPayoutLimits(deps.db, m.id),
    webhook: await webhookOf(deps.db, m.id, deps.clock.now()),
    created_at: m.created_at,
  };
}

export interface MerchantPatch {
  enabled?: boolean;
  network_fee_payer?: 'merchant' | 'customer';
}

/**
 * The owner's switches, in one transaction: `enabled` moves the owner's switch only (keys answer
 * 403 merchant_disabled while it or the operator's is off; the operator's stays as it is) and `network_fee_payer: "merchant"` (clears the legacy setting). `"customer"` is refused
 * before anything of the request is written.
 */
export async function updateOwnedMerchant(
  deps: Pick<Services, 'db' | 'clock' | 'catalog' | 'config'>,
  session: CabinetSession,
  merchant: MerchantRow,
  patch: MerchantPatch,
): Promise<MerchantSchema> {
  const merchantId = merchant.id;
  if (patch.network_fee_payer === 'customer')
    throw new AppError(
      'network_fee_payer_not_supported',
      'network_fee_payer "customer" is not supported: an invoice has no network fee for the customer; nothing was changed',
    );
  const actor = ownerActor(session);
  await writeTx(deps.db, async (trx) => {
    if (!(await ownedMerchant(trx, session.owner.id, merchantId))) throw merchantNotFound(merchantId);
    if (patch.enabled !== undefined) await setOwnerSwitch(trx, deps.clock, actor, merchantId, patch.enabled);
    if (patch.network_fee_payer === 'merchant') await clearLegacyNetworkFeePayer(trx, deps.clock, actor, merchantId);
  });
  const now = await ownedMerchant(deps.db, session.owner.id, merchantId);
  if (!now) throw merchantNotFound(merchantId);
  return merchantOwnerView(deps, now);
}

/** The merchant's own receiving switch of an asset; unknown or never receivable: asset_not_supported. */
export async function setOwnedMerchantAsset(
  deps: Pick<Services, 'db' | 'clock' | 'catalog' | 'config'>,
  session: CabinetSession,
  merchant: MerchantRow,
  asset: string,
  payments: boolean,
): Promise<MerchantSchema['assets'][number]> {
  const merchantId = merchant.id;
  const a = deps.catalog.get(asset);
  if (!a || (a.locked.has('payments') && !a.payments))
    throw new AppError('asset_not_supported', `Asset ${asset} is not accepted for payment`);
  await setMerchantAsset(deps.db, deps.clock, ownerActor(session), deps.catalog, merchantId, asset, payments);
  return (await merchantAssets(deps, merchantId)).find((x) => x.asset === asset) as MerchantSchema['assets'][number];
}

export async function ownedBalances(deps: Pick<Services, 'db' | 'catalog'>, merchantId: string) {
  const rows = await balances(deps.db, merchantId);
  return {
    merchant_id: merchantId,
    // An asset dropped from the catalog keeps its money; base units rather than a guess.
    balances: rows.map((b) => balanceView(b, deps.catalog.get(b.asset)?.decimals ?? 0)),
  };
}
