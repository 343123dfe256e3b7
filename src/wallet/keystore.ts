/**
 * The encrypted keystore file holding the BIP39 mnemonic. Key derivation: scrypt (N=2^17, r=8,
 * p=1, 128 MiB), cipher AES-256-GCM with a random 96-bit IV. The public header (version, KDF
 * parameters, deposit xpub, hot address) is the GCM additional data, so editing the xpub in the
 * file (to redirect deposits) makes decryption fail instead of silently changing addresses.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb, type ScryptOptions } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { AppError } from '../errors.js';
import { normaliseMnemonic, publicInfoOf, type WalletPublicInfo } from './hd.js';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** OWASP's scrypt recommendation; tests pass cheaper parameters to stay fast. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
export const MIN_PASSPHRASE_LENGTH = 12;

export interface KeystoreFile {
  version: 1;
  kdf: { name: 'scrypt'; salt: string } & ScryptParams;
  cipher: { name: 'aes-256-gcm'; iv: string; tag: string };
  ciphertext: string;
  deposit_xpub: string;
  hot_address: string;
  created_at: string;
}

function scrypt(passphrase: string, salt: Buffer, p: ScryptParams): Promise<Buffer> {
  const opts: ScryptOptions = { N: p.N, r: p.r, p: p.p, maxmem: 256 * p.N * p.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scryptCb(passphrase.normalize('NFKC'), salt, 32, opts, (e, k) => (e ? reject(e) : resolve(k))),
  );
}

function additionalData(k: Pick<KeystoreFile, 'version' | 'kdf' | 'deposit_xpub' | 'hot_address'>): Buffer {
  const { name, salt, N, r, p } = k.kdf;
  return Buffer.from(JSON.stringify([k.version, name, salt, N, r, p, k.deposit_xpub, k.hot_address]), 'utf8');
}

export async function encryptMnemonic(
  phrase: string,
  passphrase: string,
  createdAt: string,
  params: ScryptParams = DEFAULT_SCRYPT,
): Promise<KeystoreFile> {
  const mnemonic = normaliseMnemonic(phrase);
  const info = publicInfoOf(mnemonic);
  const salt = randomBytes(32);
  const iv = randomBytes(12);
  const header = {
    version: 1 as const,
    kdf: { name: 'scrypt' as const, salt: salt.toString('hex'), ...params },
    deposit_xpub: info.depositXpub,
    hot_address: info.hotAddress,
  };
  const key = await scrypt(passphrase, salt, params);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData(header));
  const ciphertext = Buffer.concat([cipher.update(mnemonic, 'utf8'), cipher.final()]);
  key.fill(0);
  return {
    ...header,
    cipher: { name: 'aes-256-gcm', iv: iv.toString('hex'), tag: cipher.getAuthTag().toString('hex') },
    ciphertext: ciphertext.toString('hex'),
    created_at: createdAt,
  };
}

export interface UnlockedWallet extends WalletPublicInfo {
  /** The mnemonic; hand it only to signers (sweeper, payout worker), never log it. */
  mnemonic: string;
}

export async function decryptKeystore(file: KeystoreFile, passphrase: string): Promise<UnlockedWallet> {
  if (file.version !== 1 || file.kdf?.name !== 'scrypt' || file.cipher?.name !== 'aes-256-gcm') {
    throw new AppError('invalid_state', 'Unsupported keystore format');
  }
  const { N, r, p } = file.kdf;
  // The file is not trusted before its tag is checked: bound the work and memory it can demand.
  if (
    !Number.isInteger(N) ||
    N < 2 ** 10 ||
    N > 2 ** 20 ||
    (N & (N - 1)) !== 0 ||
    r !== 8 ||
    !Number.isInteger(p) ||
    p < 1 ||
    p > 4
  ) {
    throw new AppError(
      'invalid_state',
      'The keystore asks for scrypt parameters outside the accepted range; refusing to unlock it',
    );
  }
  const key = await scrypt(passphrase, Buffer.from(file.kdf.salt, 'hex'), { N, r, p });
  let mnemonic: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(file.cipher.iv, 'hex'));
    decipher.setAAD(additionalData(file));
    decipher.setAuthTag(Buffer.from(file.cipher.tag, 'hex'));
    mnemonic = Buffer.concat([decipher.update(Buffer.from(file.ciphertext, 'hex')), decipher.final()]).toString('utf8');
  } catch {
    // GCM cannot tell a wrong passphrase from a tampered file; both mean "do not use".
    throw new AppError('invalid_argument', 'Wrong wallet passphrase, or the keystore file was modified');
  } finally {
    key.fill(0);
  }
  const info = publicInfoOf(mnemonic);
  if (info.depositXpub !== file.deposit_xpub || info.hotAddress !== file.hot_address) {
    throw new AppError('invalid_state', 'The keystore header does not match its encrypted seed');
  }
  return { mnemonic, ...info };
}

export function readKeystore(path: string): KeystoreFile {
  if (!existsSync(path))
    throw new AppError('invalid_state', `No wallet keystore at ${path}; run \`paygate init\` first`);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as KeystoreFile;
  } catch (e) {
    throw new AppError('invalid_state', `The keystore at ${path} is not readable JSON: ${(e as Error).message}`);
  }
}

/**
 * Writes the keystore with mode 0600, never over an existing file (losing a seed that holds funds
 * is the one mistake that cannot be undone): a temporary file, fsync, then link(2), which fails
 * atomically when the target appeared meanwhile.
 */
export function writeKeystore(path: string, file: KeystoreFile): void {
  if (existsSync(path))
    throw new AppError('invalid_state', `A keystore already exists at ${path}; refusing to overwrite it`);
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(file, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST')
      throw new AppError('invalid_state', `A keystore already exists at ${path}; refusing to overwrite it`);
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}
