/**
 * The sweeper's signing keys. A deposit key is derived for the stored derivation index and used
 * only when its address is the stored address: a row whose index was edited, or a seed that is not
 * the one that made the address, must never sign (refused with an alert by the caller). Keys stay
 * in local variables of the signing call; they never reach a log, an error or the database.
 */
import { depositPrivateKey, hotWalletPrivateKey, tronAddressOfPrivateKey } from '../wallet/hd.js';
import type { UnlockedWallet } from '../wallet/keystore.js';

export class KeyMismatchError extends Error {
  constructor(
    readonly address: string,
    readonly index: number,
  ) {
    super(`the key derived for index ${index} does not give address ${address}`);
    this.name = 'KeyMismatchError';
  }
}

/** Calls `use` with the deposit key of `index` after checking it owns `address`. */
export async function withDepositKey<T>(
  wallet: UnlockedWallet,
  index: number,
  address: string,
  use: (key: string) => Promise<T>,
): Promise<T> {
  const key = depositPrivateKey(wallet.mnemonic, index);
  if (tronAddressOfPrivateKey(key) !== address) throw new KeyMismatchError(address, index);
  return use(key);
}

/** The hot wallet address, derived from the unlocked seed (never read from the database). */
export function hotAddressOf(wallet: UnlockedWallet): string {
  return tronAddressOfPrivateKey(hotWalletPrivateKey(wallet.mnemonic));
}

export async function withHotKey<T>(
  wallet: UnlockedWallet,
  use: (key: string, address: string) => Promise<T>,
): Promise<T> {
  const key = hotWalletPrivateKey(wallet.mnemonic);
  return use(key, tronAddressOfPrivateKey(key));
}
