/**
 * Deposit addresses derived by libsecp256k1 (publicChildKey) against @scure/bip32's CKDpub: the
 * BIP32 test vectors' public steps, 1,000 indices of a fresh wallet compared address for address,
 * and the children BIP32 makes invalid (IL >= n, the point at infinity) skipped, forced by an
 * injected HMAC. The 100,000-index comparison is hd-libsecp256k1.slow.test.ts.
 */
import { createHmac, randomInt } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { HDKey } from '@scure/bip32';
import { describe, expect, it } from 'vitest';
import {
  DepositKeyChain,
  generateMnemonic,
  publicChildKey,
  publicInfoOf,
  tronAddressOfPublicKey,
  type ChildHmac,
} from '../../src/wallet/hd.js';
import { TEST_MNEMONIC, VECTORS } from '../invoices/fixture.js';

const N = secp256k1.CURVE.n;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const uncompressed = (key: Uint8Array) => secp256k1.ProjectivePoint.fromHex(key).toRawBytes(false);
const be256 = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
/** The HMAC of BIP32 with IL replaced for `index`: what a child with that IL would be. */
const forcedIL =
  (index: number, il: bigint): ChildHmac =>
  (chainCode, data) => {
    const I = createHmac('sha512', chainCode).update(data).digest();
    if (Buffer.from(data).readUInt32BE(33) === index) I.set(be256(il), 0);
    return I;
  };

/** @scure/bip32's address of child `index` of an xpub: deriveChild, then the key decompressed. */
const scureAddress = (account: HDKey, index: number) =>
  tronAddressOfPublicKey(uncompressed(account.deriveChild(index).publicKey!));

/** BIP32 test vectors 1 and 2: each non-hardened step, parent and child extended public keys. */
const PUBLIC_STEPS: Array<[string, number, string]> = [
  [
    'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw',
    1,
    'xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ',
  ],
  [
    'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5',
    2,
    'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
  ],
  [
    'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
    1_000_000_000,
    'xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy',
  ],
  [
    'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB',
    0,
    'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH',
  ],
];

describe('deposit addresses by libsecp256k1', () => {
  it('derive the public steps of the BIP32 test vectors', () => {
    for (const [parentXpub, index, childXpub] of PUBLIC_STEPS) {
      const parent = HDKey.fromExtendedKey(parentXpub);
      const key = publicChildKey({ publicKey: parent.publicKey!, chainCode: parent.chainCode! }, index);
      expect(hex(key!), `${parentXpub} / ${index}`).toBe(
        hex(uncompressed(HDKey.fromExtendedKey(childXpub).publicKey!)),
      );
    }
  });

  it('equal @scure/bip32 for 1,000 indices of a fresh wallet, and the vectors of docs/tron.md', () => {
    const xpub = publicInfoOf(generateMnemonic()).depositXpub;
    const chain = new DepositKeyChain(xpub);
    const account = HDKey.fromExtendedKey(xpub);
    const from = randomInt(0, 2 ** 31 - 1000);
    for (const index of [0, 2 ** 31 - 1, ...Array.from({ length: 998 }, (_, i) => from + i)])
      expect(chain.addressAt(index), `index ${index}`).toBe(scureAddress(account, index));
    const test = new DepositKeyChain(publicInfoOf(TEST_MNEMONIC).depositXpub);
    expect([0, 1, 2].map((i) => test.addressAt(i))).toEqual(VECTORS);
  });

  it('skip a child whose IL is n or more, or whose key is the point at infinity, and only that child', () => {
    const account = HDKey.fromMasterSeed(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')).derive("m/0'");
    const parent = { publicKey: account.publicKey!, chainCode: account.chainCode! };
    const k = BigInt(`0x${hex(account.privateKey!)}`);
    for (const il of [N, N + 1n, 2n ** 256n - 1n, N - k]) {
      expect(publicChildKey(parent, 7, forcedIL(7, il)), `IL ${il}`).toBeNull();
      expect(publicChildKey(parent, 8, forcedIL(7, il))).not.toBeNull();
    }
    // One below the point at infinity: valid, the key of the private key n - 1 (that is, -G).
    expect(hex(publicChildKey(parent, 7, forcedIL(7, N - k - 1n))!)).toBe(
      hex(secp256k1.ProjectivePoint.BASE.negate().toRawBytes(false)),
    );
    const chain = new DepositKeyChain(publicInfoOf(TEST_MNEMONIC).depositXpub, forcedIL(1, N));
    expect([0, 1, 2].map((i) => chain.addressAt(i))).toEqual([VECTORS[0], null, VECTORS[2]]);
  });
});
