/**
 * Validates and applies one contract to the world state, charging bandwidth and energy like
 * java-tron: staked bandwidth, else the 600 free daily points, else 1,000 sun/byte; energy from
 * stake (own + delegated), the rest burned at 100 sun, and fee_limit caps the total. A refusal
 * (CONTRACT_VALIDATE_ERROR, BANDWITH_ERROR) changes nothing; a REVERT or OUT_OF_ENERGY still pays.
 */
import {
  TRANSFER_SELECTOR,
  TRANSFER_TOPIC,
  BALANCE_OF_SELECTOR,
  DECIMALS_SELECTOR,
  uintWord,
  wordToHexAddress,
} from '../chain/trc20.js';
import type { InfoJson } from './block.js';
import { tokenByHex } from './keys.js';
import {
  ACCOUNT_CREATE_FEE,
  FREE_NET_LIMIT,
  NEW_ACCOUNT_BANDWIDTH_FEE,
  SUN_PER_BANDWIDTH,
  SUN_PER_ENERGY,
  SUN_PER_TRX,
  energyLimit,
  energyUsed,
  freeNetUsed,
  netLimit,
  netUsed,
  newAccount,
  setTokenBalance,
  tokenBalance,
  TRC10_PREFIX,
  type Account,
  type Permission,
  type WorldState,
} from './state.js';

/** Energy of a USDT-like transfer on mainnet receipts: to an existing holder / to a new one. */
export const ENERGY_TRANSFER_EXISTING = 64_285;
export const ENERGY_TRANSFER_NEW = 130_285;
export const ENERGY_REVERT = 1_512;
export const ENERGY_VIEW = 543;
export const MAX_FEE_LIMIT = 15_000_000_000;

export type Refusal = {
  ok: false;
  code: 'CONTRACT_VALIDATE_ERROR' | 'BANDWITH_ERROR' | 'CONTRACT_EXE_ERROR';
  message: string;
};
export type Applied = { ok: true; contractRet: string; info: InfoJson };

export interface ContractCall {
  type: string;
  /** java-tron JSON with hex addresses */
  value: Record<string, unknown>;
  feeLimit: number;
  /** bandwidth bytes of the signed transaction */
  bytes: number;
  txid: string;
  /** time used for resource windows (the head block's timestamp) */
  now: number;
}

const refuse = (message: string, code: Refusal['code'] = 'CONTRACT_VALIDATE_ERROR'): Refusal => ({
  ok: false,
  code,
  message,
});
const big = (v: unknown): bigint => (typeof v === 'number' || typeof v === 'string' ? BigInt(v) : 0n);
const str = (v: unknown): string => (typeof v === 'string' ? v.toLowerCase() : '');

type TokenCallOutcome = {
  result: 'SUCCESS' | 'REVERT';
  energy: number;
  apply?: (s: WorldState) => void;
  logs?: InfoJson[];
  output: string;
};

/** What a TRC20 call does, without applying it. Used by transactions and constant calls alike. */
export function evaluateTokenCall(s: WorldState, contract: string, owner: string, data: string): TokenCallOutcome {
  const d = data.toLowerCase();
  const selector = d.slice(0, 8);
  const token = tokenByHex(contract);
  if (selector === DECIMALS_SELECTOR)
    return { result: 'SUCCESS', energy: ENERGY_VIEW, output: uintWord(BigInt(token?.decimals ?? 0)) };
  if (selector === BALANCE_OF_SELECTOR && d.length >= 72) {
    return {
      result: 'SUCCESS',
      energy: ENERGY_VIEW,
      output: uintWord(tokenBalance(s, contract, wordToHexAddress(d.slice(8, 72)))),
    };
  }
  if (selector !== TRANSFER_SELECTOR || d.length < 136) return { result: 'REVERT', energy: ENERGY_REVERT, output: '' };
  const to = wordToHexAddress(d.slice(8, 72));
  const amount = BigInt(`0x${d.slice(72, 136)}`);
  const fromBalance = tokenBalance(s, contract, owner);
  if (amount > fromBalance) return { result: 'REVERT', energy: ENERGY_REVERT, output: '' };
  if (s.blacklist.has(`${contract}|${to}`) || s.blacklist.has(`${contract}|${owner}`))
    return { result: 'REVERT', energy: ENERGY_REVERT, output: '' };
  const energy = tokenBalance(s, contract, to) > 0n || to === owner ? ENERGY_TRANSFER_EXISTING : ENERGY_TRANSFER_NEW;
  const log = {
    address: contract.slice(2),
    topics: [TRANSFER_TOPIC, owner.slice(2).padStart(64, '0'), to.slice(2).padStart(64, '0')],
    data: uintWord(amount),
  };
  return {
    result: 'SUCCESS',
    energy,
    output: uintWord(1n),
    logs: [log],
    apply: (st) => {
      setTokenBalance(st, contract, owner, tokenBalance(st, contract, owner) - amount);
      setTokenBalance(st, contract, to, tokenBalance(st, contract, to) + amount);
    },
  };
}

interface NetCharge {
  /** points taken from stake or free bandwidth */
  usage: number;
  fromStake: boolean;
  fee: bigint;
}

function chargeBandwidth(
  a: Account,
  bytes: number,
  now: number,
  createsAccount: boolean,
  spendable: bigint,
): NetCharge | Refusal {
  if (netLimit(a) - netUsed(a, now) >= bytes) return { usage: bytes, fromStake: true, fee: 0n };
  if (createsAccount) {
    return spendable >= NEW_ACCOUNT_BANDWIDTH_FEE
      ? { usage: 0, fromStake: false, fee: NEW_ACCOUNT_BANDWIDTH_FEE }
      : refuse('Account resource insufficient error.', 'BANDWITH_ERROR');
  }
  if (FREE_NET_LIMIT - freeNetUsed(a, now) >= bytes) return { usage: bytes, fromStake: false, fee: 0n };
  const fee = BigInt(bytes) * SUN_PER_BANDWIDTH;
  return spendable >= fee
    ? { usage: 0, fromStake: false, fee }
    : refuse('Account resource insufficient error.', 'BANDWITH_ERROR');
}

function applyNet(a: Account, charge: NetCharge, now: number): void {
  a.balance -= charge.fee;
  if (charge.usage === 0) return;
  if (charge.fromStake) {
    a.netUsage = netUsed(a, now) + charge.usage;
    a.netTime = now;
  } else {
    a.freeNetUsage = freeNetUsed(a, now) + charge.usage;
    a.freeNetTime = now;
  }
}

function receiptOf(net: NetCharge, extra: InfoJson = {}): InfoJson {
  const r: InfoJson = { ...extra };
  if (net.fee > 0n) r.net_fee = Number(net.fee);
  else if (net.usage > 0) r.net_usage = net.usage;
  return r;
}

const RESOURCES = new Set(['BANDWIDTH', 'ENERGY']);
/** java-tron's limit of witnesses in one vote. */
const MAX_VOTE_NUMBER = 30;
/** The fee java-tron burns for an account permission update (chain parameter, 100 TRX). */
const UPDATE_PERMISSION_FEE = 100n * SUN_PER_TRX;

/** A permission's keys and threshold as java-tron checks them, or why it is refused. */
function permissionOf(p: Record<string, unknown>): Permission | string {
  const threshold = Number(big(p.threshold));
  const keys = Array.isArray(p.keys) ? (p.keys as Record<string, unknown>[]) : [];
  if (keys.length === 0) return "key's count should be greater than 0";
  if (threshold <= 0) return "permission's threshold should be greater than 0";
  const out: [string, number][] = [];
  for (const k of keys) {
    const address = str(k.address);
    const weight = Number(big(k.weight));
    if (!/^41[0-9a-f]{40}$/.test(address)) return 'key is not a validate address';
    if (weight <= 0) return "key's weight should be greater than 0";
    out.push([address, weight]);
  }
  if (out.reduce((n, [, w]) => n + w, 0) < threshold)
    return "sum of all key's weight should not be less than threshold";
  return { threshold, keys: out };
}

/** Validates and applies `call` to `s`. */
export function applyContract(s: WorldState, call: ContractCall): Applied | Refusal {
  const v = call.value;
  const owner = str(v.owner_address);
  const a = s.accounts.get(owner);
  if (!a) return refuse(`Validate ${call.type} error, no OwnerAccount.`);
  const now = call.now;
  const base: InfoJson = { id: call.txid };
  switch (call.type) {
    case 'TransferContract': {
      const to = str(v.to_address);
      const amount = big(v.amount);
      if (amount <= 0n) return refuse('Amount must be greater than 0.');
      if (to === owner) return refuse('Cannot transfer TRX to yourself.');
      if (!/^41[0-9a-f]{40}$/.test(to)) return refuse('Invalid toAddress!');
      const creates = !s.accounts.has(to);
      const createFee = creates ? ACCOUNT_CREATE_FEE : 0n;
      if (a.balance < amount + createFee) return refuse(`Validate TransferContract error, balance is not sufficient.`);
      const net = chargeBandwidth(a, call.bytes, now, creates, a.balance - amount - createFee);
      if ('ok' in net) return net;
      applyNet(a, net, now);
      a.balance -= amount + createFee;
      const dest = s.accounts.get(to) ?? newAccount(now);
      dest.balance += amount;
      s.accounts.set(to, dest);
      const fee = net.fee + createFee;
      return {
        ok: true,
        contractRet: 'SUCCESS',
        info: { ...base, fee: Number(fee), contractResult: [''], receipt: receiptOf(net) },
      };
    }
    case 'TriggerSmartContract': {
      const contract = str(v.contract_address);
      if (!tokenByHex(contract)) return refuse('No contract or not a valid smart contract');
      if (call.feeLimit < 0 || call.feeLimit > MAX_FEE_LIMIT)
        return refuse(`feeLimit must be >= 0 and <= ${MAX_FEE_LIMIT}`);
      // A payable call: the TRX value moves to the contract's account with the call (a devnet token
      // takes it, as a contract with a payable function would).
      const callValue = big(v.call_value);
      if (callValue < 0n) return refuse('callValue must be >= 0');
      if (callValue > a.balance) return refuse('Validate InternalTransfer error, balance is not sufficient.');
      const net = chargeBandwidth(a, call.bytes, now, false, a.balance - callValue);
      if ('ok' in net) return net;
      const outcome = evaluateTokenCall(s, contract, owner, str(v.data));
      const leftStake = Math.max(0, energyLimit(a) - energyUsed(a, now));
      const spendable = a.balance - net.fee - callValue;
      const limit = Math.min(
        leftStake + Number(spendable / SUN_PER_ENERGY),
        Math.floor(call.feeLimit / Number(SUN_PER_ENERGY)),
      );
      const outOfEnergy = outcome.energy > limit;
      const used = outOfEnergy ? limit : outcome.energy;
      const fromStake = Math.min(used, leftStake);
      const burned = BigInt(used - fromStake) * SUN_PER_ENERGY;
      applyNet(a, net, now);
      a.balance -= burned;
      if (fromStake > 0) {
        a.energyUsage = energyUsed(a, now) + fromStake;
        a.energyTime = now;
      }
      const result = outOfEnergy ? 'OUT_OF_ENERGY' : outcome.result;
      if (result === 'SUCCESS') {
        outcome.apply?.(s);
        if (callValue > 0n) {
          a.balance -= callValue;
          const c = s.accounts.get(contract);
          if (c) c.balance += callValue;
        }
      }
      const receipt = receiptOf(net, {});
      if (fromStake) receipt.energy_usage = fromStake;
      if (burned) receipt.energy_fee = Number(burned);
      if (used) receipt.energy_usage_total = used;
      receipt.result = result;
      const info: InfoJson = {
        ...base,
        fee: Number(net.fee + burned),
        contractResult: [result === 'SUCCESS' ? outcome.output : ''],
        contract_address: contract,
        receipt,
      };
      if (result === 'SUCCESS' && outcome.logs) info.log = outcome.logs;
      if (result !== 'SUCCESS') {
        info.result = 'FAILED';
        const msg =
          result === 'REVERT'
            ? 'REVERT opcode executed'
            : `Not enough energy for 'SSTORE' operation executing: curInvokeEnergyLimit[${limit}]`;
        info.resMessage = Buffer.from(msg).toString('hex');
      }
      return { ok: true, contractRet: result, info };
    }
    case 'FreezeBalanceV2Contract': {
      const amount = big(v.frozen_balance);
      const resource = String(v.resource ?? 'BANDWIDTH');
      if (!RESOURCES.has(resource)) return refuse('ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]');
      if (amount < SUN_PER_TRX) return refuse('frozenBalance must be greater than or equal to 1 TRX');
      if (amount > a.balance) return refuse('frozenBalance must be less than or equal to accountBalance');
      const net = chargeBandwidth(a, call.bytes, now, false, a.balance - amount);
      if ('ok' in net) return net;
      applyNet(a, net, now);
      a.balance -= amount;
      if (resource === 'ENERGY') a.frozenEnergy += amount;
      else a.frozenBandwidth += amount;
      return {
        ok: true,
        contractRet: 'SUCCESS',
        info: { ...base, fee: Number(net.fee), contractResult: [''], receipt: receiptOf(net) },
      };
    }
    case 'DelegateResourceContract':
    case 'UnDelegateResourceContract': {
      const receiver = str(v.receiver_address);
      const amount = big(v.balance);
      const resource = String(v.resource ?? 'BANDWIDTH');
      if (!RESOURCES.has(resource)) return refuse('ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]');
      if (receiver === owner) return refuse('receiverAddress must not be the same as ownerAddress');
      const r = s.accounts.get(receiver);
      if (!r) return refuse(`Account[${receiver}] not exists`);
      if (amount < SUN_PER_TRX) return refuse('delegateBalance must be greater than or equal to 1 TRX');
      const key = `${owner}|${receiver}|${resource}`;
      const delegated = s.delegations.get(key) ?? 0n;
      const energy = resource === 'ENERGY';
      const delegating = call.type === 'DelegateResourceContract';
      if (delegating && amount > (energy ? a.frozenEnergy : a.frozenBandwidth))
        return refuse('delegateBalance must be less than or equal to available FreezeV2 balance');
      if (!delegating && amount > delegated) return refuse('insufficient delegatedFrozenBalance');
      const net = chargeBandwidth(a, call.bytes, now, false, a.balance);
      if ('ok' in net) return net;
      applyNet(a, net, now);
      const d = delegating ? amount : -amount;
      s.delegations.set(key, delegated + d);
      if (energy) {
        a.frozenEnergy -= d;
        a.delegatedOutEnergy += d;
        r.acquiredEnergy += d;
      } else {
        a.frozenBandwidth -= d;
        a.delegatedOutBandwidth += d;
        r.acquiredBandwidth += d;
      }
      return {
        ok: true,
        contractRet: 'SUCCESS',
        info: { ...base, fee: Number(net.fee), contractResult: [''], receipt: receiptOf(net) },
      };
    }
    case 'TransferAssetContract': {
      const to = str(v.to_address);
      const amount = big(v.amount);
      const id = Buffer.from(str(v.asset_name), 'hex').toString('utf8');
      const key = `${TRC10_PREFIX}${id}`;
      if (!s.tokens.has(key)) return refuse('No asset!');
      if (amount <= 0n) return refuse('Amount must be greater than 0.');
      if (to === owner) return refuse('Cannot transfer asset to yourself.');
      if (!/^41[0-9a-f]{40}$/.test(to)) return refuse('Invalid toAddress!');
      if (tokenBalance(s, key, owner) < amount) return refuse('assetBalance is not sufficient.');
      const creates = !s.accounts.has(to);
      const createFee = creates ? ACCOUNT_CREATE_FEE : 0n;
      if (a.balance < createFee) return refuse('Validate TransferAssetContract error, balance is not sufficient.');
      const net = chargeBandwidth(a, call.bytes, now, creates, a.balance - createFee);
      if ('ok' in net) return net;
      applyNet(a, net, now);
      a.balance -= createFee;
      if (creates) s.accounts.set(to, newAccount(now));
      setTokenBalance(s, key, owner, tokenBalance(s, key, owner) - amount);
      setTokenBalance(s, key, to, tokenBalance(s, key, to) + amount);
      return {
        ok: true,
        contractRet: 'SUCCESS',
        info: { ...base, fee: Number(net.fee + createFee), contractResult: [''], receipt: receiptOf(net) },
      };
    }
    case 'VoteWitnessContract': {
      const votes = Array.isArray(v.votes) ? (v.votes as Record<string, unknown>[]) : [];
      if (votes.length === 0) return refuse('VoteNumber must more than 0');
      if (votes.length > MAX_VOTE_NUMBER) return refuse(`VoteNumber more than maxVoteNumber ${MAX_VOTE_NUMBER}`);
      let total = 0n;
      for (const vote of votes) {
        const witness = str(vote.vote_address);
        const count = big(vote.vote_count);
        if (count <= 0n) return refuse('vote count must be greater than 0');
        if (!s.accounts.has(witness)) return refuse(`Witness[${witness}] not exists`);
        total += count;
      }
      // Tron power: one vote per staked TRX, delegated stake included.
      const power = (a.frozenBandwidth + a.frozenEnergy + a.delegatedOutBandwidth + a.delegatedOutEnergy) / SUN_PER_TRX;
      if (total > power) return refuse(`The total number of votes[${total}] is greater than the tronPower[${power}]`);
      const net = chargeBandwidth(a, call.bytes, now, false, a.balance);
      if ('ok' in net) return net;
      applyNet(a, net, now);
      return {
        ok: true,
        contractRet: 'SUCCESS',
        info: { ...base, fee: Number(net.fee), contractResult: [''], receipt: receiptOf(net) },
      };
    }
    case 'AccountPermissionUpdateContract': {
      const ownerPermission = v.owner as Record<string, unknown> | undefined;
      if (!ownerPermission) return refuse('owner permission is missed');
      if (!Array.isArray(v.actives) || v.actives.length === 0) return refuse('active permission is missed');
      const permission = permissionOf(ownerPermission);
      if (typeof permission === 'string') return refuse(`${permission} in permission Owner`);
      for (const active of v.actives as Record<string, unknown>[]) {
        const p = permissionOf(active);
        if (typeof p === 'string') return refuse(`${p} in permission Active`);
      }
      if (a.balance < UPDATE_PERMISSION_FEE)
        return refuse('Validate AccountPermissionUpdateContract error, balance is not sufficient.');
      const net = chargeBandwidth(a, call.bytes, now, false, a.balance - UPDATE_PERMISSION_FEE);
      if ('ok' in net) return net;
      applyNet(a, net, now);
      a.balance -= UPDATE_PERMISSION_FEE;
      s.permissions.set(owner, permission);
      return {
        ok: true,
        contractRet: 'SUCCESS',
        info: { ...base, fee: Number(net.fee + UPDATE_PERMISSION_FEE), contractResult: [''], receipt: receiptOf(net) },
      };
    }
    default:
      return refuse(`${call.type} is not supported by the devnet`);
  }
}
