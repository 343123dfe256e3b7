/**
 * The one holder of the wallet's secret in a running process. `serve` makes it once at start from
 * the unlocked keystore (src/app.ts) and hands it to the two workers that sign: the payout worker
 * and the sweeper. It is never part of `Services`, so route handlers, metrics and scheduled jobs
 * cannot reach the mnemonic or a private key (docs/architecture.md, "Where the secret lives").
 *
 * The mnemonic stays in this closure. A key is handed only to the signing call that needs it (as a
 * local variable of the callback); it never reaches a log, an error or the database.
 */
import { depositPrivateKey, hotWalletPrivateKey, tronAddressOfPrivateKey } from './hd.js';
import type { UnlockedWallet } from './keystore.js';

export class KeyMismatchError extends Error {
  constructor(
    readonly address: string,
    readonly index: number,
  ) {
    super(`the key derived for index ${index} does not give address ${address}`);
    this.name = 'KeyMismatchError';
  }
}

export interface Signer {
  /** The hot wallet address, derived from the unlocked seed (never read from the database). */
  readonly hotAddress: string;
  /** Calls `use` with the hot wallet key and its address. */
  withHotKey<T>(use: (key: string, address: string) => Promise<T>): Promise<T>;
  /**
   * Calls `use` with the deposit key of `index` after checking it owns `address`: a row whose index
   * was edited, or a seed that is not the one that made the address, never signs (KeyMismatchError).
   */
  withDepositKey<T>(index: number, address: string, use: (key: string) => Promise<T>): Promise<T>;
}

/** The signer of an unlocked wallet; refuses a wallet whose hot key does not give its hot address. */
export function createSigner(wallet: UnlockedWallet): Signer {
  const mnemonic = wallet.mnemonic;
  // Derived once: the payout worker signs with it on every payout.
  const hotKey = hotWalletPrivateKey(mnemonic);
  const hotAddress = tronAddressOfPrivateKey(hotKey);
  if (hotAddress !== wallet.hotAddress) throw new Error('the hot wallet key does not give the keystore hot address');
  return {
    hotAddress,
    withHotKey: (use) => use(hotKey, hotAddress),
    async withDepositKey(index, address, use) {
      const key = depositPrivateKey(mnemonic, index);
      if (tronAddressOfPrivateKey(key) !== address) throw new KeyMismatchError(address, index);
      return use(key);
    },
  };
}
