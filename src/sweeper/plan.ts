/**
 * What a sweep does next, decided from the chain as it is now (never from what we believe it
 * should be), so a sweep resumed after a crash or a failed step simply continues: a top-up that
 * already landed is seen as TRX at the address, a delegation as energy there.
 *
 * TRC20: the deposit address needs energy and bandwidth. Energy comes by delegation from the hot
 * wallet's staked TRX when it has enough to spare, else from TRX sent to the address (burned at
 * the energy price); bandwidth from the address's free daily points, else TRX. An address never
 * activated gets activated by that TRX transfer. After the transfer the delegation is reclaimed.
 * TRX: the balance minus the bandwidth it must burn (nothing when free points cover it).
 */
import type { AccountResources, TronClient } from '../chain/client.js';
import type { AssetCatalog, CatalogAsset } from '../assets/catalog.js';
import type { SweepStep } from '../db/tables/sweeper.js';
import type { SweepTxRow } from './store.js';

/** Sun per energy unit burned and per bandwidth byte burned (java-tron getEnergyFee / getTransactionFee). */
export const ENERGY_PRICE_SUN = 100n;
export const BANDWIDTH_PRICE_SUN = 1_000n;
/** A signed TRC20 transfer is about 345 bytes, a TRX transfer about 270: both with margin. */
export const TRC20_SWEEP_BYTES = 400n;
export const TRX_SWEEP_BYTES = 300n;
/** Energy estimates move (dynamic energy): plan for 20 % more. */
export const ENERGY_MARGIN_PERCENT = 120n;
const SUN_PER_TRX = 1_000_000n;

export type Plan =
  | { kind: 'finish'; status: 'done' | 'empty' }
  | { kind: 'tx'; step: SweepStep; signer: 'hot' | 'deposit'; amount: bigint; feeLimit?: bigint }
  /** Cannot act now (e.g. the hot wallet lacks TRX): a failed attempt, retried later. */
  | { kind: 'blocked'; reason: string };

export interface PlanInput {
  chain: TronClient;
  asset: CatalogAsset;
  address: string;
  hot: string;
  txs: readonly SweepTxRow[];
}

const max0 = (v: bigint) => (v > 0n ? v : 0n);
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

async function resourcesOf(chain: TronClient, address: string, exists: boolean): Promise<AccountResources | null> {
  return exists ? chain.getAccountResources(address) : null;
}

function bandwidthLeft(r: AccountResources | null): bigint {
  if (!r) return 0n;
  return max0(r.freeNetLimit - r.freeNetUsed) + max0(r.netLimit - r.netUsed);
}

/** Staked TRX (sun, whole TRX) the hot wallet would delegate to give `energy`, or null when it cannot spare it. */
export async function delegationFor(chain: TronClient, hot: string, energy: bigint): Promise<bigint | null> {
  const [acct, res] = await Promise.all([chain.getAccount(hot), chain.getAccountResources(hot)]);
  const stake = acct.frozenForEnergy + acct.acquiredEnergy;
  if (acct.frozenForEnergy === 0n || res.energyLimit === 0n || stake === 0n) return null;
  const sun = ceilDiv(ceilDiv(energy * stake, res.energyLimit), SUN_PER_TRX) * SUN_PER_TRX;
  const spare = max0(res.energyLimit - res.energyUsed);
  // What the hot wallet can give without taking energy it has already used.
  if (sun > acct.frozenForEnergy || energy > spare) return null;
  return sun < SUN_PER_TRX ? SUN_PER_TRX : sun;
}

/** A TRX transfer that activates its receiver burns 1 TRX plus 0.1 TRX of bandwidth. */
export const ACTIVATION_FEE_SUN = 1_100_000n;

/** The TRX a sweep of `address` into `hot` would move now and what it burns (bandwidth, activation of a new hot wallet). */
export async function trxSweepable(
  chain: TronClient,
  address: string,
  hot: string,
): Promise<{ balance: bigint; cost: bigint; amount: bigint }> {
  const acct = await chain.getAccount(address);
  if (!acct.exists || acct.balance === 0n) return { balance: 0n, cost: 0n, amount: 0n };
  const [res, dest] = await Promise.all([resourcesOf(chain, address, true), chain.getAccount(hot)]);
  const cost = !dest.exists
    ? ACTIVATION_FEE_SUN
    : bandwidthLeft(res) >= TRX_SWEEP_BYTES
      ? 0n
      : TRX_SWEEP_BYTES * BANDWIDTH_PRICE_SUN;
  return { balance: acct.balance, cost, amount: max0(acct.balance - cost) };
}

export async function balanceOf(chain: TronClient, asset: CatalogAsset, address: string): Promise<bigint> {
  if (asset.type === 'native') return (await chain.getAccount(address)).balance;
  return chain.getTrc20Balance(asset.contract as string, address);
}

/** What a sweep of `address` into `hot` would move now: TRX net of what it burns, a token's whole balance. */
export async function sweepable(chain: TronClient, asset: CatalogAsset, address: string, hot: string): Promise<bigint> {
  return asset.type === 'native' ? (await trxSweepable(chain, address, hot)).amount : balanceOf(chain, asset, address);
}

/**
 * Sorts an address's tokens before its TRX: a token's sweep burns the TRX already at the address
 * for its fees, and the TRX sweep after it moves what is left.
 */
export const tokensFirst = (a: CatalogAsset | undefined): number => (a?.type === 'native' ? 1 : 0);

/** Address by address, each address's tokens before its TRX. */
export function sweepOrder(
  catalog: AssetCatalog,
): (a: { address: string; asset: string }, b: { address: string; asset: string }) => number {
  return (a, b) =>
    a.address.localeCompare(b.address) || tokensFirst(catalog.get(a.asset)) - tokensFirst(catalog.get(b.asset));
}

/** Staked sun delegated by this sweep and not yet reclaimed. */
export function outstandingDelegation(txs: readonly SweepTxRow[]): bigint {
  let sum = 0n;
  for (const t of txs) {
    if (t.status !== 'confirmed') continue;
    if (t.step === 'delegate_energy') sum += BigInt(t.amount);
    if (t.step === 'undelegate_energy') sum -= BigInt(t.amount);
  }
  return sum;
}

export async function nextStep(p: PlanInput): Promise<Plan> {
  const transferred = p.txs.some((t) => t.step === 'transfer' && t.status === 'confirmed');
  if (p.asset.type === 'native') {
    if (transferred) return { kind: 'finish', status: 'done' };
    const s = await trxSweepable(p.chain, p.address, p.hot);
    return s.amount > 0n
      ? { kind: 'tx', step: 'transfer', signer: 'deposit', amount: s.amount }
      : { kind: 'finish', status: 'empty' };
  }
  const contract = p.asset.contract as string;
  const balance = transferred ? 0n : await p.chain.getTrc20Balance(contract, p.address);
  if (transferred || balance === 0n) {
    const lent = outstandingDelegation(p.txs);
    if (lent > 0n) return { kind: 'tx', step: 'undelegate_energy', signer: 'hot', amount: lent };
    return { kind: 'finish', status: transferred ? 'done' : 'empty' };
  }
  const estimate = await p.chain.estimateTrc20TransferEnergy(contract, p.address, p.hot, balance);
  const energyNeed = ceilDiv(estimate * ENERGY_MARGIN_PERCENT, 100n);
  const feeLimit = (energyNeed > 10_000n ? energyNeed : 10_000n) * ENERGY_PRICE_SUN;
  const acct = await p.chain.getAccount(p.address);
  const res = await resourcesOf(p.chain, p.address, acct.exists);
  const energyGap = max0(energyNeed - (res ? max0(res.energyLimit - res.energyUsed) : 0n));
  // Delegation needs an activated receiver; the activation transfer comes first either way.
  const delegation = energyGap > 0n ? await delegationFor(p.chain, p.hot, energyGap) : null;
  const trxNeed =
    (delegation === null ? energyGap * ENERGY_PRICE_SUN : 0n) +
    (bandwidthLeft(res) >= TRC20_SWEEP_BYTES ? 0n : TRC20_SWEEP_BYTES * BANDWIDTH_PRICE_SUN);
  if (!acct.exists || acct.balance < trxNeed) {
    const topUp = trxNeed - acct.balance > 0n ? trxNeed - acct.balance : 1n;
    const hot = await p.chain.getAccount(p.hot);
    // The top-up plus the 1.1 TRX an activation burns, with a little room for the hot wallet's own bandwidth.
    if (hot.balance < topUp + 2n * SUN_PER_TRX)
      return { kind: 'blocked', reason: `hot wallet TRX balance ${hot.balance} sun is below the top-up ${topUp} sun` };
    return { kind: 'tx', step: 'top_up', signer: 'hot', amount: topUp };
  }
  if (delegation !== null) return { kind: 'tx', step: 'delegate_energy', signer: 'hot', amount: delegation };
  return { kind: 'tx', step: 'transfer', signer: 'deposit', amount: balance, feeLimit };
}
