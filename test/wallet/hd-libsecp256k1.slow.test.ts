/**
 * The slow tier (`npm test` runs it; `npm run test:fast` does not): 100,000 deposit addresses of a fresh wallet by
 * libsecp256k1 against @scure/bip32's CKDpub, address for address (~80 s, most of it @scure/bip32).
 */
import { randomInt } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { HDKey } from '@scure/bip32';
import { describe, expect, it } from 'vitest';
import { DepositKeyChain, generateMnemonic, publicInfoOf, tronAddressOfPublicKey } from '../../src/wallet/hd.js';

const COUNT = 100_000;

describe('deposit addresses by libsecp256k1, slow tier', () => {
  it(`equal @scure/bip32 for ${COUNT.toLocaleString('en')} indices of a fresh wallet`, { timeout: 600_000 }, () => {
    const xpub = publicInfoOf(generateMnemonic()).depositXpub;
    const chain = new DepositKeyChain(xpub);
    const account = HDKey.fromExtendedKey(xpub);
    const from = randomInt(0, 2 ** 31 - COUNT);
    let differing = 0;
    for (let index = from; index < from + COUNT; index++) {
      const child = secp256k1.ProjectivePoint.fromHex(account.deriveChild(index).publicKey!).toRawBytes(false);
      // One expect per index would cost more than the derivations; the first difference is named.
      if (chain.addressAt(index) !== tronAddressOfPublicKey(child) && differing++ === 0)
        expect(chain.addressAt(index), `index ${index}`).toBe(tronAddressOfPublicKey(child));
    }
    expect(differing).toBe(0);
  });
});
