/**
 * TRC20 ABI pieces paygate needs: `transfer`, `balanceOf`, `decimals` calldata and the `Transfer`
 * event. Hand-rolled (fixed-size words only) because real USDT calldata carries `41` in the high
 * bytes of address words, which tronweb's strict ABI decoder rejects; we always read the low 20.
 */
import { fromHexAddress, toHexAddress } from './address.js';

export const TRANSFER_SELECTOR = 'a9059cbb';
export const BALANCE_OF_SELECTOR = '70a08231';
export const DECIMALS_SELECTOR = '313ce567';
/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const MAX_UINT256 = (1n << 256n) - 1n;

/** 32-byte word of a uint256. */
export function uintWord(value: bigint): string {
  if (value < 0n || value > MAX_UINT256) throw new Error(`uint256 out of range: ${value}`);
  return value.toString(16).padStart(64, '0');
}

/** 32-byte word of an address given as base58 or `41…` hex (the `41` is not part of the word). */
export function addressWord(address: string): string {
  const hex = address.startsWith('T') ? toHexAddress(address) : address.toLowerCase();
  return hex.replace(/^41/, '').padStart(64, '0');
}

/** The low 20 bytes of an address word as `41…` hex. */
export function wordToHexAddress(word: string): string {
  return `41${word.slice(-40).toLowerCase()}`;
}

export function transferCalldata(to: string, amount: bigint): string {
  return TRANSFER_SELECTOR + addressWord(to) + uintWord(amount);
}

export function balanceOfCalldata(holder: string): string {
  return BALANCE_OF_SELECTOR + addressWord(holder);
}

/** Decodes `transfer(address,uint256)` calldata; null for anything else. */
export function decodeTransferCall(data: string): { to: string; amount: bigint } | null {
  const d = data.toLowerCase().replace(/^0x/, '');
  if (!d.startsWith(TRANSFER_SELECTOR) || d.length < 8 + 128 || !/^[0-9a-f]*$/.test(d)) return null;
  return { to: wordToHexAddress(d.slice(8, 72)), amount: BigInt(`0x${d.slice(72, 136)}`) };
}

export interface EventLog {
  /** Contract address as 20-byte hex without `41`, as java-tron prints it. */
  address: string;
  topics: string[];
  data?: string;
}

export interface Trc20TransferEvent {
  /** Token contract, base58. */
  contract: string;
  from: string;
  to: string;
  amount: bigint;
}

/** Decodes a `Transfer(address,address,uint256)` log; null for any other event. */
export function decodeTransferLog(log: EventLog): Trc20TransferEvent | null {
  const [topic0, fromWord, toWord] = log.topics;
  if (topic0?.toLowerCase() !== TRANSFER_TOPIC || !fromWord || !toWord || log.topics.length !== 3) return null;
  const data = (log.data ?? '').replace(/^0x/, '');
  if (data.length < 64) return null;
  return {
    contract: fromHexAddress(log.address),
    from: fromHexAddress(wordToHexAddress(fromWord)),
    to: fromHexAddress(wordToHexAddress(toWord)),
    amount: BigInt(`0x${data.slice(0, 64)}`),
  };
}
