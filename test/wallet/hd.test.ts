/** HD derivation against the vectors of docs/tron.md, from the seed and from the xpub alone. */
import { TronWeb } from 'tronweb';
import { describe, expect, it } from 'vitest';
import {
  DepositKeyChain,
  depositPrivateKey,
  hotWalletPrivateKey,
  normaliseMnemonic,
  publicInfoOf,
  generateMnemonic,
  INDEX_SPACE,
} from '../../src/wallet/hd.js';
import { TEST_MNEMONIC, VECTORS } from '../invoices/fixture.js';

describe('HD wallet', () => {
  const info = publicInfoOf(TEST_MNEMONIC);
  const chain = new DepositKeyChain(info.depositXpub);

  it('derives the vectors of docs/tron.md from the xpub only', () => {
    expect(info.depositXpub).toMatch(/^xpub/);
    expect([0, 1, 2].map((i) => chain.addressAt(i))).toEqual(VECTORS);
    expect(TronWeb.address.toHex(VECTORS[0]!).toLowerCase()).toBe('41c8599111f29c1e1e061265b4af93ea1f274ad78a');
  });

  it('matches the seed-side derivation (tronweb) for the signer, across the index range', () => {
    for (const i of [0, 1, 2, 17, 1000, 2 ** 31 - 1]) {
      const fromSeed = TronWeb.fromMnemonic(TEST_MNEMONIC, `m/44'/195'/0'/0/${i}`) as {
        address: string;
        privateKey: string;
      };
      expect(chain.addressAt(i), `index ${i}`).toBe(fromSeed.address);
      expect(depositPrivateKey(TEST_MNEMONIC, i)).toBe(fromSeed.privateKey.slice(2));
    }
    const hot = TronWeb.fromMnemonic(TEST_MNEMONIC, "m/44'/195'/1'/0/0") as { address: string; privateKey: string };
    expect(info.hotAddress).toBe(hot.address);
    expect(TronWeb.address.fromPrivateKey(hotWalletPrivateKey(TEST_MNEMONIC))).toBe(hot.address);
    expect(VECTORS).not.toContain(info.hotAddress);
  });

  it('refuses hardened or negative indexes and private extended keys', () => {
    expect(() => chain.addressAt(INDEX_SPACE)).toThrow(RangeError);
    expect(() => chain.addressAt(-1)).toThrow(RangeError);
    expect(() => chain.addressAt(1.5)).toThrow(RangeError);
    expect(() => new DepositKeyChain('xpub-not-a-key')).toThrow();
  });

  it('validates mnemonics and generates 24-word ones', () => {
    expect(normaliseMnemonic(`  ${TEST_MNEMONIC.toUpperCase().replace(/ /g, '  \n')} `)).toBe(TEST_MNEMONIC);
    expect(() => normaliseMnemonic(TEST_MNEMONIC.replace(/about$/, 'abandon'))).toThrow(/checksum/);
    expect(() => normaliseMnemonic('abandon abandon')).toThrow();
    const m = generateMnemonic();
    expect(m.split(' ')).toHaveLength(24);
    expect(normaliseMnemonic(m)).toBe(m);
    expect(generateMnemonic()).not.toBe(m);
  });
});
