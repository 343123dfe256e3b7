/**
 * Wallet lifecycle: `paygate init` (create or restore), unlocking at `serve` start, and the public
 * summary of `wallet show`. The database keeps only the public half (xpub, hot address); the
 * keystore file keeps the encrypted mnemonic.
 */
import { recordAudit } from '../audit/store.js';
import { countDepositAddresses } from '../addresses/store.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { writeTx, type Db, type Tx } from '../db/database.js';
import { AppError } from '../errors.js';
import {
  DEPOSIT_ACCOUNT_PATH,
  generateMnemonic,
  HOT_WALLET_PATH,
  normaliseMnemonic,
  publicInfoOf,
  type WalletPublicInfo,
} from './hd.js';
import {
  decryptKeystore,
  DEFAULT_SCRYPT,
  encryptMnemonic,
  MIN_PASSPHRASE_LENGTH,
  readKeystore,
  writeKeystore,
  type ScryptParams,
  type UnlockedWallet,
} from './keystore.js';
import { findWallet, insertWallet } from './store.js';
import { existsSync } from 'node:fs';

export interface InitResult {
  keystore: string;
  deposit_xpub: string;
  deposit_path: string;
  hot_address: string;
  hot_path: string;
  /** Present only when a new mnemonic was generated: shown once, never stored in clear. */
  mnemonic: string | null;
  restored: boolean;
}

function requirePassphrase(config: Config): string {
  const p = config.walletPassphrase;
  if (p === null)
    throw new AppError(
      'invalid_argument',
      'Set WALLET_PASSPHRASE or WALLET_PASSPHRASE_FILE to encrypt the wallet keystore',
    );
  return p;
}

/**
 * The database must never switch seeds under existing addresses: money sent to them would become
 * unreachable. A restore of the same seed (lost keystore file) is allowed.
 */
async function ensureWalletRow(db: Tx, clock: Clock, info: WalletPublicInfo): Promise<void> {
  const row = await findWallet(db);
  if (!row) {
    await insertWallet(db, {
      deposit_xpub: info.depositXpub,
      deposit_path: DEPOSIT_ACCOUNT_PATH,
      hot_address: info.hotAddress,
      hot_path: HOT_WALLET_PATH,
      created_at: clock.now().toISOString(),
    });
  } else if (row.deposit_xpub !== info.depositXpub) {
    throw new AppError(
      'invalid_state',
      'This database belongs to a different wallet seed; refusing to mix seeds (deposit addresses would become unspendable)',
    );
  }
}

export async function initWallet(
  db: Db,
  clock: Clock,
  actor: string,
  config: Config,
  opts: { mnemonic?: string; scrypt?: ScryptParams } = {},
): Promise<InitResult> {
  const passphrase = requirePassphrase(config);
  if (passphrase.length < MIN_PASSPHRASE_LENGTH) {
    throw new AppError(
      'invalid_argument',
      `The wallet passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters`,
    );
  }
  if (existsSync(config.walletKeystore)) {
    throw new AppError(
      'invalid_state',
      `A keystore already exists at ${config.walletKeystore}; refusing to overwrite it`,
    );
  }
  let restored = false;
  let phrase: string;
  if (opts.mnemonic !== undefined) {
    try {
      phrase = normaliseMnemonic(opts.mnemonic);
    } catch (e) {
      throw new AppError('invalid_argument', `--mnemonic-file: ${(e as Error).message}`);
    }
    restored = true;
  } else {
    phrase = generateMnemonic();
  }
  const info = publicInfoOf(phrase);
  const existing = await findWallet(db);
  if (existing && existing.deposit_xpub !== info.depositXpub) {
    throw new AppError(
      'invalid_state',
      'This database already belongs to another wallet seed; restore that seed with --mnemonic-file instead',
    );
  }
  const file = await encryptMnemonic(phrase, passphrase, clock.now().toISOString(), opts.scrypt ?? DEFAULT_SCRYPT);
  // The file first: a database row without its keystore is recoverable by a restore; the reverse
  // (a keystore the database does not know) is harmless too, since ensureWalletRow adds it later.
  writeKeystore(config.walletKeystore, file);
  await writeTx(db, async (trx) => {
    await ensureWalletRow(trx, clock, info);
    await recordAudit(trx, clock, {
      actor,
      action: restored ? 'wallet.restore' : 'wallet.init',
      subjectType: 'wallet',
      // Not the xpub: with non-hardened deposit keys, the xpub plus any one leaked deposit key
      // gives every deposit key, so it stays where it is needed (wallet row, keystore, wallet show).
      subjectId: info.hotAddress,
      details: { keystore: config.walletKeystore, hot_address: info.hotAddress },
    });
  });
  return {
    keystore: config.walletKeystore,
    deposit_xpub: info.depositXpub,
    deposit_path: DEPOSIT_ACCOUNT_PATH,
    hot_address: info.hotAddress,
    hot_path: HOT_WALLET_PATH,
    mnemonic: restored ? null : phrase,
    restored,
  };
}

/** At `serve` start: decrypts the keystore and checks it belongs to this database. */
export async function unlockWallet(db: Db, clock: Clock, config: Config): Promise<UnlockedWallet> {
  const unlocked = await decryptKeystore(readKeystore(config.walletKeystore), requirePassphrase(config));
  // The passphrase has done its work: child processes and anything reading the environment later
  // must not find it (the seed stays in this process's memory only).
  delete process.env.WALLET_PASSPHRASE;
  await writeTx(db, (trx) => ensureWalletRow(trx, clock, unlocked));
  return unlocked;
}

export interface WalletSummary {
  hot_address: string;
  hot_path: string;
  deposit_xpub: string;
  deposit_path: string;
  deposit_addresses_in_use: number;
  next_index: number;
}

export async function walletSummary(db: Db): Promise<WalletSummary> {
  const row = await findWallet(db);
  if (!row) throw new AppError('invalid_state', 'No wallet yet; run `paygate init` first');
  return {
    hot_address: row.hot_address,
    hot_path: row.hot_path,
    deposit_xpub: row.deposit_xpub,
    deposit_path: row.deposit_path,
    deposit_addresses_in_use: await countDepositAddresses(db),
    next_index: row.next_index,
  };
}
