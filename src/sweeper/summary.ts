/**
 * The treasury part of `paygate wallet show`: the hot wallet's balances and resources (from the
 * node) and what deposit addresses still hold per asset (from the sweeper's records: the balance
 * seen at its last check of each address, plus final deposits it has not looked at yet).
 */
import type { AssetCatalog } from '../assets/catalog.js';
import type { TronClient } from '../chain/client.js';
import type { Executor } from '../db/database.js';
import { formatAmount } from '../money.js';
import { nonEmptyMarks, unsweptDepositTotals } from './store.js';

export interface HotWalletView {
  address: string;
  trx: string;
  tokens: Record<string, string>;
  energy_available: string;
  bandwidth_available: string;
  staked_for_energy_trx: string;
  delegated_energy_trx: string;
}

export interface TreasuryView {
  hot_wallet: HotWalletView | null;
  /** Why the node could not be asked (the rest is still shown). */
  hot_wallet_error?: string;
  in_deposit_addresses: { asset: string; amount: string }[];
}

const max0 = (v: bigint) => (v > 0n ? v : 0n);

export async function hotWalletView(chain: TronClient, catalog: AssetCatalog, address: string): Promise<HotWalletView> {
  const [acct, res] = await Promise.all([chain.getAccount(address), chain.getAccountResources(address)]);
  const tokens: Record<string, string> = {};
  for (const a of catalog.assets) {
    if (a.type === 'trc20')
      tokens[a.code] = formatAmount(await chain.getTrc20Balance(a.contract as string, address), a.decimals);
  }
  return {
    address,
    trx: formatAmount(acct.balance, 6),
    tokens,
    energy_available: max0(res.energyLimit - res.energyUsed).toString(),
    bandwidth_available: (max0(res.freeNetLimit - res.freeNetUsed) + max0(res.netLimit - res.netUsed)).toString(),
    staked_for_energy_trx: formatAmount(acct.frozenForEnergy, 6),
    delegated_energy_trx: formatAmount(acct.delegatedOutEnergy, 6),
  };
}

export async function inDepositAddresses(
  db: Executor,
  catalog: AssetCatalog,
): Promise<{ asset: string; amount: string }[]> {
  const sums = new Map<string, bigint>(catalog.assets.map((a) => [a.code, 0n]));
  for (const m of await nonEmptyMarks(db)) sums.set(m.asset, (sums.get(m.asset) ?? 0n) + BigInt(m.balance));
  for (const d of await unsweptDepositTotals(db)) sums.set(d.asset, (sums.get(d.asset) ?? 0n) + BigInt(d.amount));
  return [...sums].map(([asset, units]) => ({ asset, amount: formatAmount(units, catalog.get(asset)?.decimals ?? 0) }));
}

export async function treasurySummary(
  db: Executor,
  chain: TronClient,
  catalog: AssetCatalog,
  hotAddress: string,
): Promise<TreasuryView> {
  const in_deposit_addresses = await inDepositAddresses(db, catalog);
  try {
    return { hot_wallet: await hotWalletView(chain, catalog, hotAddress), in_deposit_addresses };
  } catch (e) {
    return { hot_wallet: null, hot_wallet_error: e instanceof Error ? e.message : String(e), in_deposit_addresses };
  }
}
