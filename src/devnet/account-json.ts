/** `/wallet/getaccount`, `/wallet/getaccountresource`, `/wallet/getaccountnet` answers, proto3-style. */
import { fromHexAddress } from '../chain/address.js';
import { tokenByHex } from './keys.js';
import {
  FREE_NET_LIMIT,
  energyLimit,
  energyUsed,
  freeNetUsed,
  netLimit,
  netUsed,
  type Account,
  type WorldState,
} from './state.js';

const TOTAL_NET_LIMIT = 43_200_000_000;
const TOTAL_ENERGY_LIMIT = 180_000_000_000;

type Json = Record<string, unknown>;

function put(o: Json, key: string, v: bigint | number): void {
  if (v !== 0 && v !== 0n) o[key] = Number(v);
}

function totals(s: WorldState): { net: number; energy: number } {
  let net = 0n;
  let energy = 0n;
  for (const a of s.accounts.values()) {
    net += a.frozenBandwidth + a.delegatedOutBandwidth;
    energy += a.frozenEnergy + a.delegatedOutEnergy;
  }
  return { net: Number(net / 1_000_000n), energy: Number(energy / 1_000_000n) };
}

export function accountJson(s: WorldState, hex: string, now: number, visible: boolean): Json {
  const a: Account | undefined = s.accounts.get(hex);
  if (!a) return {};
  const out: Json = { address: visible ? fromHexAddress(hex) : hex };
  put(out, 'balance', a.balance);
  put(out, 'create_time', a.createTime);
  if (tokenByHex(hex)) out.type = 'Contract';
  put(out, 'net_usage', netUsed(a, now));
  put(out, 'latest_consume_time', a.netTime);
  put(out, 'free_net_usage', freeNetUsed(a, now));
  put(out, 'latest_consume_free_time', a.freeNetTime);
  const bandwidth: Json = {};
  put(bandwidth, 'amount', a.frozenBandwidth);
  const energy: Json = { type: 'ENERGY' };
  put(energy, 'amount', a.frozenEnergy);
  out.frozenV2 = [bandwidth, energy, { type: 'TRON_POWER' }];
  put(out, 'delegated_frozenV2_balance_for_bandwidth', a.delegatedOutBandwidth);
  put(out, 'acquired_delegated_frozenV2_balance_for_bandwidth', a.acquiredBandwidth);
  const res: Json = {};
  put(res, 'energy_usage', energyUsed(a, now));
  put(res, 'latest_consume_time_for_energy', a.energyTime);
  put(res, 'delegated_frozenV2_balance_for_energy', a.delegatedOutEnergy);
  put(res, 'acquired_delegated_frozenV2_balance_for_energy', a.acquiredEnergy);
  res.energy_window_size = 28_800;
  out.account_resource = res;
  out.net_window_size = 28_800;
  return out;
}

export function accountNetJson(s: WorldState, hex: string, now: number): Json {
  const a = s.accounts.get(hex);
  if (!a) return {};
  const t = totals(s);
  const out: Json = {};
  put(out, 'freeNetUsed', freeNetUsed(a, now));
  out.freeNetLimit = FREE_NET_LIMIT;
  put(out, 'NetUsed', netUsed(a, now));
  put(out, 'NetLimit', netLimit(a));
  out.TotalNetLimit = TOTAL_NET_LIMIT;
  put(out, 'TotalNetWeight', t.net);
  return out;
}

export function accountResourceJson(s: WorldState, hex: string, now: number): Json {
  const a = s.accounts.get(hex);
  if (!a) return {};
  const t = totals(s);
  const out = accountNetJson(s, hex, now);
  put(
    out,
    'tronPowerLimit',
    (a.frozenBandwidth + a.frozenEnergy + a.delegatedOutBandwidth + a.delegatedOutEnergy) / 1_000_000n,
  );
  put(out, 'EnergyUsed', energyUsed(a, now));
  put(out, 'EnergyLimit', energyLimit(a));
  out.TotalEnergyLimit = TOTAL_ENERGY_LIMIT;
  put(out, 'TotalEnergyWeight', t.energy);
  return out;
}
