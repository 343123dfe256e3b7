/**
 * HD derivation for TRON (BIP44 coin type 195). Deposit addresses are m/44'/195'/0'/0/i, derived
 * from the account's extended public key only: the API and the watcher never hold the seed. The hot
 * wallet is m/44'/195'/1'/0/0. Private keys are derived from the mnemonic only by the signers.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { createHmac } from 'node:crypto';
import { TronWeb, utils } from 'tronweb';

const { ethersHDNodeWallet, keccak256, isValidMnemonic, Mnemonic } = utils.ethersUtils;

export type CurvePoint = InstanceType<typeof secp256k1.ProjectivePoint>;

export const DEPOSIT_ACCOUNT_PATH = "m/44'/195'/0'/0";
export const HOT_WALLET_PATH = "m/44'/195'/1'/0/0";
/** Non-hardened child indexes are below 2^31; past that the deposit index space is exhausted. */
export const INDEX_SPACE = 2 ** 31;

/** base58check TRON address of an uncompressed (65-byte, 04-prefixed) secp256k1 public key. */
export function tronAddressOfPublicKey(uncompressed: Uint8Array): string {
  const hash = keccak256(uncompressed.subarray(1));
  return TronWeb.address.fromHex(`41${hash.slice(-40)}`);
}

/** A fresh 24-word English mnemonic from 256 bits of OS randomness. */
export function generateMnemonic(): string {
  const entropy = new Uint8Array(32);
  crypto.getRandomValues(entropy);
  return Mnemonic.fromEntropy(entropy).phrase;
}

/** Normalises whitespace and case; throws when the phrase is not a valid BIP39 English mnemonic. */
export function normaliseMnemonic(text: string): string {
  const phrase = text.trim().toLowerCase().split(/\s+/).join(' ');
  const words = phrase.split(' ').length;
  if (![12, 15, 18, 21, 24].includes(words) || !isValidMnemonic(phrase)) {
    throw new Error('not a valid BIP39 English mnemonic (12 to 24 words with a correct checksum)');
  }
  return phrase;
}

export interface WalletPublicInfo {
  depositXpub: string;
  hotAddress: string;
}

/** What the database keeps about a mnemonic: the deposit account xpub and the hot wallet address. */
export function publicInfoOf(phrase: string): WalletPublicInfo {
  const account = ethersHDNodeWallet.fromPhrase(phrase, undefined, DEPOSIT_ACCOUNT_PATH);
  const hot = ethersHDNodeWallet.fromPhrase(phrase, undefined, HOT_WALLET_PATH);
  return { depositXpub: account.neuter().extendedKey, hotAddress: tronAddressOfPublicKey(hexBytes(hot.signingKey.publicKey)) };
}

/** Signer side only: the private key (hex, no 0x) of deposit address i or of the hot wallet. */
export function depositPrivateKey(phrase: string, index: number): string {
  assertIndex(index);
  return ethersHDNodeWallet.fromPhrase(phrase, undefined, `${DEPOSIT_ACCOUNT_PATH}/${index}`).privateKey.slice(2);
}

export function hotWalletPrivateKey(phrase: string): string {
  return ethersHDNodeWallet.fromPhrase(phrase, undefined, HOT_WALLET_PATH).privateKey.slice(2);
}

function assertIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= INDEX_SPACE) throw new RangeError(`derivation index out of range: ${index}`);
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
}

/**
 * Watch-only derivation of deposit addresses from the account xpub (BIP32 CKDpub). The parent
 * point is decoded once and kept, so a child costs one base-point multiplication, one addition and
 * a keccak: about half what ethers' generic HDNodeWallet.deriveChild spends (it decompresses points
 * twice per child). The constructor checks itself against ethers on child 0.
 */
export class DepositKeyChain {
  readonly chainCode: Buffer;
  readonly parentCompressed: Buffer;
  private readonly parent: CurvePoint;

  constructor(readonly xpub: string) {
    const node = ethersHDNodeWallet.fromExtendedKey(xpub);
    if ('privateKey' in node) throw new Error('the deposit account key must be an xpub, not an xprv');
    if (node.depth !== 4) throw new Error(`the deposit xpub must be at depth 4 (${DEPOSIT_ACCOUNT_PATH}), got ${node.depth}`);
    this.chainCode = Buffer.from(node.chainCode.slice(2), 'hex');
    this.parentCompressed = Buffer.from(node.publicKey.slice(2), 'hex');
    this.parent = secp256k1.ProjectivePoint.fromHex(this.parentCompressed);
    const reference = tronAddressOfPublicKey(secp256k1.ProjectivePoint.fromHex(hexBytes(node.deriveChild(0).publicKey)).toRawBytes(false));
    if (this.addressAt(0) !== reference) throw new Error('deposit key derivation self-check failed');
  }

  addressAt(index: number): string {
    return tronAddressOfPublicKey(this.pointAt(index).toRawBytes(false));
  }

  /** The BIP32 tweak of child `index` (IL as a scalar), or null when that index is invalid. */
  tweakAt(index: number): bigint | null {
    assertIndex(index);
    const data = Buffer.alloc(37);
    this.parentCompressed.copy(data, 0);
    data.writeUInt32BE(index, 33);
    const I = createHmac('sha512', this.chainCode).update(data).digest();
    const tweak = BigInt(`0x${I.subarray(0, 32).toString('hex')}`);
    // BIP32: such an index is invalid (probability below 2^-127); it is never handed out.
    return tweak === 0n || tweak >= secp256k1.CURVE.n ? null : tweak;
  }

  /** The public key of child `index` (parent + tweak·G). */
  pointAt(index: number): CurvePoint {
    const tweak = this.tweakAt(index);
    const child = tweak === null ? null : secp256k1.ProjectivePoint.BASE.multiply(tweak).add(this.parent);
    if (child === null || child.equals(secp256k1.ProjectivePoint.ZERO)) throw new Error(`BIP32 child ${index} is invalid`);
    return child;
  }

  /** The account's public key, the parent of every deposit key. */
  get parentPoint(): CurvePoint {
    return this.parent;
  }
}
