/**
 * The devnet's world state: TRX accounts (balance, activation, stake, delegation, resource usage)
 * and TRC20 balances. Cheap to clone, because forks restore the state of an earlier block.
 * Resource usage recovers linearly over 24 h, as java-tron's windows do.
 */

export interface Account {
  balance: bigint;
  createTime: number;
  frozenEnergy: bigint;
  frozenBandwidth: bigint;
  delegatedOutEnergy: bigint;
  delegatedOutBandwidth: bigint;
  acquiredEnergy: bigint;
  acquiredBandwidth: bigint;
  freeNetUsage: number;
  freeNetTime: number;
  netUsage: number;
  netTime: number;
  energyUsage: number;
  energyTime: number;
}

export interface WorldState {
  accounts: Map<string, Account>;
  /** token contract hex → holder hex → balance */
  tokens: Map<string, Map<string, bigint>>;
  /** `${owner}|${receiver}|${resource}` → delegated sun */
  delegations: Map<string, bigint>;
  /** `${token contract hex}|${holder hex}`: holders the contract refuses to pay or to let pay (as USDT's blacklist). */
  blacklist: Set<string>;
  /**
   * Accounts whose owner and active permissions an `AccountPermissionUpdateContract` set: the keys
   * (`41…` hex) that may sign for them and the weight needed. An account absent here is signed for
   * by its own key only, as on java-tron.
   */
  permissions: Map<string, Permission>;
}

export interface Permission {
  threshold: number;
  /** signer hex → weight */
  keys: [string, number][];
}

/** TRC-10 balances share `tokens` under this prefix and the token's id (no contract hex looks like it). */
export const TRC10_PREFIX = 'trc10:';
/** The devnet's one TRC-10 token, issued to the faucet at genesis. */
export const DEVNET_TRC10_ID = '1000001';

export const SUN_PER_TRX = 1_000_000n;
export const FREE_NET_LIMIT = 600;
/** Sun per bandwidth byte burned when neither staked nor free bandwidth is left. */
export const SUN_PER_BANDWIDTH = 1_000n;
/** Sun per energy unit burned (since Aug 2025). */
export const SUN_PER_ENERGY = 100n;
/** Devnet resource yield of 1 staked TRX per day (mainnet: roughly 10 energy, 1.5 bandwidth). */
export const ENERGY_PER_TRX = 10n;
export const BANDWIDTH_PER_TRX = 1n;
export const ACCOUNT_CREATE_FEE = 1_000_000n;
export const NEW_ACCOUNT_BANDWIDTH_FEE = 100_000n;
const WINDOW_MS = 86_400_000;

export function emptyState(): WorldState {
  return {
    accounts: new Map(),
    tokens: new Map(),
    delegations: new Map(),
    blacklist: new Set(),
    permissions: new Map(),
  };
}

export function newAccount(now: number): Account {
  return {
    balance: 0n,
    createTime: now,
    frozenEnergy: 0n,
    frozenBandwidth: 0n,
    delegatedOutEnergy: 0n,
    delegatedOutBandwidth: 0n,
    acquiredEnergy: 0n,
    acquiredBandwidth: 0n,
    freeNetUsage: 0,
    freeNetTime: 0,
    netUsage: 0,
    netTime: 0,
    energyUsage: 0,
    energyTime: 0,
  };
}

export function cloneState(s: WorldState): WorldState {
  const accounts = new Map<string, Account>();
  for (const [k, a] of s.accounts) accounts.set(k, { ...a });
  const tokens = new Map<string, Map<string, bigint>>();
  for (const [k, m] of s.tokens) tokens.set(k, new Map(m));
  return {
    accounts,
    tokens,
    delegations: new Map(s.delegations),
    blacklist: new Set(s.blacklist),
    permissions: new Map([...s.permissions].map(([k, p]) => [k, { threshold: p.threshold, keys: [...p.keys] }])),
  };
}

export function tokenBalance(s: WorldState, contract: string, holder: string): bigint {
  return s.tokens.get(contract)?.get(holder) ?? 0n;
}

export function setTokenBalance(s: WorldState, contract: string, holder: string, value: bigint): void {
  let m = s.tokens.get(contract);
  if (!m) {
    m = new Map();
    s.tokens.set(contract, m);
  }
  if (value === 0n) m.delete(holder);
  else m.set(holder, value);
}

/** Usage left after linear recovery since `since`. */
export function recovered(usage: number, since: number, now: number): number {
  if (usage <= 0) return 0;
  const left = 1 - (now - since) / WINDOW_MS;
  return left <= 0 ? 0 : Math.ceil(usage * left);
}

export function energyLimit(a: Account): number {
  return Number(((a.frozenEnergy + a.acquiredEnergy) / SUN_PER_TRX) * ENERGY_PER_TRX);
}

export function netLimit(a: Account): number {
  return Number(((a.frozenBandwidth + a.acquiredBandwidth) / SUN_PER_TRX) * BANDWIDTH_PER_TRX);
}

export function energyUsed(a: Account, now: number): number {
  return recovered(a.energyUsage, a.energyTime, now);
}

export function netUsed(a: Account, now: number): number {
  return recovered(a.netUsage, a.netTime, now);
}

export function freeNetUsed(a: Account, now: number): number {
  return recovered(a.freeNetUsage, a.freeNetTime, now);
}
