/**
 * HD derivation for TRON (BIP44 coin type 195). Deposit addresses are m/44'/195'/0'/0/i, derived
 * from the account's extended public key only: the API and the watcher never hold the seed. The hot
 * wallet is m/44'/195'/1'/0/0. Private keys are derived from the mnemonic only by the signers.
 *
 * Built on @scure/bip32, @scure/bip39, @noble/curves and node:crypto, not on tronweb's bundled
 * ethers: `serve` unlocks the keystore and derives addresses, and loading tronweb for that alone
 * costs tens of megabytes of memory.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { HDKey } from '@scure/bip32';
import { entropyToMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { pbkdf2Sync } from 'node:crypto';
import { addressFromBytes } from '../chain/address.js';

export const DEPOSIT_ACCOUNT_PATH = "m/44'/195'/0'/0";
export const HOT_WALLET_PATH = "m/44'/195'/1'/0/0";
/** Non-hardened child indexes are below 2^31; past that the deposit index space is exhausted. */
export const INDEX_SPACE = 2 ** 31;

const INVALID_MNEMONIC = 'not a valid BIP39 English mnemonic (12 to 24 words with a correct checksum)';
const WORD_COUNTS = [12, 15, 18, 21, 24];

/** base58check TRON address of an uncompressed (65-byte, 04-prefixed) secp256k1 public key. */
export function tronAddressOfPublicKey(uncompressed: Uint8Array): string {
  const body = new Uint8Array(21);
  body[0] = 0x41;
  body.set(keccak_256(uncompressed.subarray(1)).subarray(12), 1);
  return addressFromBytes(body);
}

/** Signer side: the address of a private key (hex), from its uncompressed public key. */
export function tronAddressOfPrivateKey(privateKeyHex: string): string {
  let publicKey: Uint8Array;
  try {
    publicKey = secp256k1.getPublicKey(privateKeyHex, false);
  } catch {
    throw new Error('could not derive an address from a key');
  }
  return tronAddressOfPublicKey(publicKey);
}

/** A fresh 24-word English mnemonic from 256 bits of OS randomness. */
export function generateMnemonic(): string {
  const entropy = new Uint8Array(32);
  crypto.getRandomValues(entropy);
  return entropyToMnemonic(entropy, english);
}

/** Normalises whitespace and case; throws when the phrase is not a valid BIP39 English mnemonic. */
export function normaliseMnemonic(text: string): string {
  const phrase = text.trim().toLowerCase().split(/\s+/).join(' ');
  if (canonicalPhrase(phrase) === null) throw new Error(INVALID_MNEMONIC);
  return phrase;
}

/**
 * The phrase whose bytes BIP39 hashes into the seed: the words after NFKD (as BIP39 and ethers
 * compare them, so a full-width "ａbandon" is "abandon"), one space apart; null when invalid. Every
 * English word is ASCII a-z, so anything else left after NFKD is invalid before the word list is
 * asked (@scure/bip39 would NFKD the whole phrase and could split a word in two; ethers did not).
 */
function canonicalPhrase(text: string): string | null {
  const words = text
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.normalize('NFKD'));
  if (!WORD_COUNTS.includes(words.length) || !words.every((w) => /^[a-z]+$/.test(w))) return null;
  const phrase = words.join(' ');
  return validateMnemonic(phrase, english) ? phrase : null;
}

/**
 * The BIP32 master key of a mnemonic: BIP39 seed with the empty passphrase (PBKDF2-HMAC-SHA512,
 * 2048 rounds, salt "mnemonic"). node:crypto's PBKDF2, not @scure/bip39's mnemonicToSeedSync (the
 * same bytes): that one is pure JavaScript, ~11 ms a seed on the event loop against ~1 ms, and the
 * sweeper derives a key for every sweep it starts and every transaction it signs.
 */
function masterKeyOf(phrase: string): HDKey {
  const canonical = canonicalPhrase(phrase);
  if (canonical === null) throw new Error(INVALID_MNEMONIC);
  const seed = pbkdf2Sync(canonical, 'mnemonic', 2048, 64, 'sha512');
  try {
    return HDKey.fromMasterSeed(seed);
  } finally {
    seed.fill(0);
  }
}

export interface WalletPublicInfo {
  depositXpub: string;
  hotAddress: string;
}

/** What the database keeps about a mnemonic: the deposit account xpub and the hot wallet address. */
export function publicInfoOf(phrase: string): WalletPublicInfo {
  const master = masterKeyOf(phrase);
  const hot = master.derive(HOT_WALLET_PATH);
  return {
    depositXpub: master.derive(DEPOSIT_ACCOUNT_PATH).publicExtendedKey,
    hotAddress: tronAddressOfPublicKey(uncompressed(hot.publicKey)),
  };
}

/** Signer side only: the private key (hex, no 0x) of deposit address i or of the hot wallet. */
export function depositPrivateKey(phrase: string, index: number): string {
  assertIndex(index);
  return privateKeyAt(phrase, `${DEPOSIT_ACCOUNT_PATH}/${index}`);
}

export function hotWalletPrivateKey(phrase: string): string {
  return privateKeyAt(phrase, HOT_WALLET_PATH);
}

function privateKeyAt(phrase: string, path: string): string {
  const key = masterKeyOf(phrase).derive(path).privateKey;
  if (!key) throw new Error(`no private key at ${path}`);
  return Buffer.from(key).toString('hex');
}

function assertIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= INDEX_SPACE)
    throw new RangeError(`derivation index out of range: ${index}`);
}

/** The 65-byte form of a 33-byte compressed public key (what TRON hashes into an address). */
function uncompressed(compressed: Uint8Array | null): Uint8Array {
  if (!compressed) throw new Error('no public key');
  return secp256k1.ProjectivePoint.fromHex(compressed).toRawBytes(false);
}

/**
 * Watch-only derivation of deposit addresses from the account xpub: BIP32 public child derivation
 * (CKDpub) by @scure/bip32, then the TRON address of the child's public key.
 */
export class DepositKeyChain {
  private readonly account: HDKey;

  constructor(readonly xpub: string) {
    const node = HDKey.fromExtendedKey(xpub);
    if (node.privateKey) throw new Error('the deposit account key must be an xpub, not an xprv');
    if (node.depth !== 4)
      throw new Error(`the deposit xpub must be at depth 4 (${DEPOSIT_ACCOUNT_PATH}), got ${node.depth}`);
    this.account = node;
  }

  /** The deposit address of child `index`; throws for an index BIP32 makes invalid (odds below 2^-127). */
  addressAt(index: number): string {
    assertIndex(index);
    return tronAddressOfPublicKey(uncompressed(this.account.deriveChild(index).publicKey));
  }
}
