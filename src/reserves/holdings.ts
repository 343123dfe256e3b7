/**
 * What the chain holds for the service, read from the node (the production TRON client): the
 * balances of deposit addresses, a batch at a time with a few requests in flight, and the hot
 * wallet's. A failed read fails the check: a partial sum would read as a shortfall.
 */
import pLimit from 'p-limit';
import type { AssetCatalog, CatalogAsset } from '../assets/catalog.js';
import type { TronClient } from '../chain/client.js';

/** Node requests in flight at once while reading deposit addresses. */
export const READ_CONCURRENCY = 4;

export interface Pair {
  address: string;
  asset: string;
}

async function balanceOf(chain: TronClient, asset: CatalogAsset, address: string): Promise<bigint> {
  if (asset.type === 'native') return (await chain.getAccount(address)).balance;
  return chain.getTrc20Balance(asset.contract as string, address);
}

/** Adds the balances of `pairs` (assets outside the catalog are skipped) to `into`, by asset. */
export async function addBalances(
  chain: TronClient,
  catalog: AssetCatalog,
  pairs: readonly Pair[],
  into: Map<string, bigint>,
): Promise<number> {
  const limit = pLimit(READ_CONCURRENCY);
  const known = pairs.filter((p) => catalog.get(p.asset) !== undefined);
  const read = await Promise.all(
    known.map((p) =>
      limit(async () => ({ asset: p.asset, units: await balanceOf(chain, catalog.get(p.asset)!, p.address) })),
    ),
  );
  for (const r of read) into.set(r.asset, (into.get(r.asset) ?? 0n) + r.units);
  return known.length;
}

export interface HotWalletHoldings {
  /** Liquid balance per asset. */
  balances: Map<string, bigint>;
  /** TRX the hot wallet has staked (its own, delegated away or not): the service's, unfrozen on demand. */
  stakedTrx: bigint;
}

export async function hotWalletHoldings(
  chain: TronClient,
  catalog: AssetCatalog,
  address: string,
): Promise<HotWalletHoldings> {
  const balances = new Map<string, bigint>();
  let stakedTrx = 0n;
  for (const asset of catalog.assets) {
    if (asset.type === 'native') {
      const acct = await chain.getAccount(address);
      balances.set(asset.code, acct.balance);
      stakedTrx = acct.frozenForEnergy + acct.frozenForBandwidth + acct.delegatedOutEnergy + acct.delegatedOutBandwidth;
    } else balances.set(asset.code, await chain.getTrc20Balance(asset.contract as string, address));
  }
  return { balances, stakedTrx };
}
