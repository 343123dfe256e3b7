/**
 * HD derivation for TRON (BIP44 coin type 195). Deposit addresses are m/44'/195'/0'/0/i, derived
 * from the account's extended public key only: the API and the watcher never hold the seed. The hot
 * wallet is m/44'/195'/1'/0/0. Private keys are derived from the mnemonic only by the signers.
 *
 * Built on @scure/bip32, @scure/bip39, @noble/curves, node:crypto and (for deposit addresses from
 * the xpub) libsecp256k1, not on tronweb's bundled
 * ethers: `serve` unlocks the keystore and derives addresses, and loading tronweb for that alone
 * costs tens of megabytes of memory.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { HDKey } from '@scure/bip32';
import { entropyToMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { createHmac, pbkdf2Sync } from 'node:crypto';
import { createRequire } from 'node:module';
import { addressFromBytes } from '../chain/address.js';

/**
 * The native binding of libsecp256k1, loaded directly: the package's main entry falls back to its
 * JavaScript (elliptic) code when the binding is missing, ten times slower; a missing binding must
 * stop start-up instead, saying so.
 */
const libsecp256k1 = loadLibsecp256k1();
/** What the binding throws when a tweak is out of range or the sum is the point at infinity. */
const TWEAK_REJECTED = 'The tweak was out of range or the resulted private key is invalid';

function loadLibsecp256k1(): typeof import('secp256k1') {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings') as typeof import('secp256k1');
  } catch (error) {
    throw new Error(
      `the native libsecp256k1 binding of the secp256k1 package could not be loaded (${(error as Error).message}); ` +
        'reinstall with `npm ci` on this platform (prebuilt for linux-x64, otherwise built with node-gyp)',
    );
  }
}

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

/** HMAC-SHA512 of BIP32 CKDpub: keyed by the parent's chain code, over its compressed key || ser32(index). */
export type ChildHmac = (chainCode: Uint8Array, data: Uint8Array) => Uint8Array;

const hmacSha512: ChildHmac = (chainCode, data) => createHmac('sha512', chainCode).update(data).digest();

/** A public BIP32 node: its 33-byte compressed key and its chain code. */
export interface PublicNode {
  publicKey: Uint8Array;
  chainCode: Uint8Array;
}

/**
 * BIP32 public child derivation (CKDpub) of a non-hardened `index`: the child's 65-byte key, as
 * libsecp256k1 returns it, or null when BIP32 makes the child invalid (IL >= n, or the sum is the
 * point at infinity; odds below 2^-127), an index the caller skips for the next one as BIP32 says.
 */
export function publicChildKey(parent: PublicNode, index: number, hmac: ChildHmac = hmacSha512): Uint8Array | null {
  const data = new Uint8Array(37);
  data.set(parent.publicKey);
  new DataView(data.buffer).setUint32(33, index, false);
  const tweak = hmac(parent.chainCode, data).subarray(0, 32);
  try {
    return libsecp256k1.publicKeyTweakAdd(parent.publicKey, tweak, false);
  } catch (error) {
    // libsecp256k1's ec_pubkey_tweak_add rejects IL >= n and a sum at infinity alike.
    if (error instanceof Error && error.message === TWEAK_REJECTED) return null;
    throw error;
  }
}

/**
 * Watch-only derivation of deposit addresses from the account xpub: CKDpub by node:crypto's
 * HMAC-SHA512 and libsecp256k1's point addition (publicChildKey), then the TRON address of the
 * child's key. The parent's key and chain code are read from the xpub once. ~60 µs an address,
 * against ~750 µs with @scure/bip32's deriveChild and a second decompression.
 */
export class DepositKeyChain {
  private readonly account: PublicNode;

  /** `hmac` is replaceable so that tests can force the invalid children BIP32 describes. */
  constructor(
    readonly xpub: string,
    private readonly hmac: ChildHmac = hmacSha512,
  ) {
    const node = HDKey.fromExtendedKey(xpub);
    if (node.privateKey) throw new Error('the deposit account key must be an xpub, not an xprv');
    if (node.depth !== 4)
      throw new Error(`the deposit xpub must be at depth 4 (${DEPOSIT_ACCOUNT_PATH}), got ${node.depth}`);
    if (!node.publicKey || !node.chainCode) throw new Error('the deposit xpub has no public key or chain code');
    this.account = { publicKey: node.publicKey, chainCode: node.chainCode };
  }

  /** The deposit address of child `index`, or null for an index BIP32 makes invalid (skip it). */
  addressAt(index: number): string | null {
    assertIndex(index);
    const key = publicChildKey(this.account, index, this.hmac);
    return key === null ? null : tronAddressOfPublicKey(key);
  }
}
