/**
 * Deterministic identities of the devnet: funded test accounts, the faucet, block producers and
 * the TRC20 token contracts. Derived from fixed labels so every devnet (and every restart) has the
 * same addresses; the keys are public test keys and must never hold real value.
 */
import { TronWeb, utils } from 'tronweb';
import { fromHexAddress } from '../chain/address.js';

export interface DevnetKey {
  /** base58 */
  address: string;
  /** 41-prefixed hex */
  hex: string;
  privateKey: string;
}

export interface DevnetToken {
  /** API asset code, e.g. USDT_TRON. */
  asset: string;
  symbol: string;
  name: string;
  decimals: number;
  /** base58 contract address */
  address: string;
  hex: string;
}

function sha256Hex(text: string): string {
  return utils.ethersUtils.sha256(Buffer.from(text, 'utf8')).slice(2);
}

export function keyFromLabel(label: string): DevnetKey {
  const privateKey = sha256Hex(`paygate-devnet-key:${label}`);
  const address = TronWeb.address.fromPrivateKey(privateKey);
  if (!address) throw new Error(`cannot derive an address for ${label}`);
  return { address, hex: TronWeb.address.toHex(address).toLowerCase(), privateKey };
}

export function keyFromPrivate(privateKey: string): DevnetKey {
  const pk = privateKey.replace(/^0x/, '');
  const address = TronWeb.address.fromPrivateKey(pk);
  if (!address) throw new Error('invalid private key');
  return { address, hex: TronWeb.address.toHex(address).toLowerCase(), privateKey: pk };
}

function contractAddress(symbol: string): { address: string; hex: string } {
  const hex = `41${sha256Hex(`paygate-devnet-token:${symbol}`).slice(-40)}`;
  return { address: fromHexAddress(hex), hex };
}

export const DEVNET_TOKENS: readonly DevnetToken[] = [
  { asset: 'USDT_TRON', symbol: 'USDT', name: 'Tether USD (devnet)', decimals: 6, ...contractAddress('USDT') },
  { asset: 'USDC_TRON', symbol: 'USDC', name: 'USD Coin (devnet)', decimals: 6, ...contractAddress('USDC') },
  { asset: 'USDD_TRON', symbol: 'USDD', name: 'Decentralized USD (devnet)', decimals: 18, ...contractAddress('USDD') },
];

export const FUNDED_ACCOUNT_COUNT = 5;
/** Genesis allocation of each funded account, in whole units of every asset. */
export const FUNDED_UNITS = 1_000_000n;
/** The faucet backs /devnet/fund; it holds far more than any test needs. */
export const FAUCET_UNITS = 1_000_000_000n;

export const fundedAccounts = (n = FUNDED_ACCOUNT_COUNT): DevnetKey[] =>
  Array.from({ length: n }, (_, i) => keyFromLabel(`account-${i}`));
export const faucetKey = (): DevnetKey => keyFromLabel('faucet');
export const witnessKeys = (): DevnetKey[] => Array.from({ length: 4 }, (_, i) => keyFromLabel(`witness-${i}`));

export function tokenByAsset(asset: string): DevnetToken | undefined {
  return DEVNET_TOKENS.find((t) => t.asset === asset || t.symbol === asset);
}

export function tokenByHex(hex: string): DevnetToken | undefined {
  const h = hex.toLowerCase();
  return DEVNET_TOKENS.find((t) => t.hex === h);
}
