/**
 * The wallet's derivation on @scure/bip32, @scure/bip39 and node:crypto against ethers (tronweb's
 * bundled copy, what src/wallet/hd.ts used before): the same mnemonics accepted, the same xpub, hot
 * address, private keys and deposit addresses for every one of them. This decides which address
 * receives money and which key signs, so nothing here is assumed equal: it is compared.
 */
import { randomBytes, randomInt } from 'node:crypto';
import fc from 'fast-check';
import { TronWeb, utils } from 'tronweb';
import { describe, expect, it } from 'vitest';
import {
  DEPOSIT_ACCOUNT_PATH,
  DepositKeyChain,
  depositPrivateKey,
  generateMnemonic,
  HOT_WALLET_PATH,
  hotWalletPrivateKey,
  normaliseMnemonic,
  publicInfoOf,
  tronAddressOfPrivateKey,
  tronAddressOfPublicKey,
} from '../../src/wallet/hd.js';
import { TEST_MNEMONIC, VECTORS } from '../invoices/fixture.js';

const { ethersHDNodeWallet: HDNodeWallet, Mnemonic, isValidMnemonic, keccak256, SigningKey } = utils.ethersUtils;
/** ａｂｃ…: NFKD makes them ASCII again. */
const fullWidth = (word: string) => String.fromCodePoint(...[...word].map((c) => c.codePointAt(0)! + 0xfee0));
const INVALID = 'not a valid BIP39 English mnemonic (12 to 24 words with a correct checksum)';

/** src/wallet/hd.ts before, over ethers and TronWeb. */
const before = {
  /** An uncompressed `0x04…` key, as ethers' signingKey.publicKey is. */
  addressOfPublicKey: (publicKeyHex: string) =>
    TronWeb.address.fromHex(`41${keccak256(`0x${publicKeyHex.slice(4)}`).slice(-40)}`),
  normaliseMnemonic(text: string): string {
    const phrase = text.trim().toLowerCase().split(/\s+/).join(' ');
    if (![12, 15, 18, 21, 24].includes(phrase.split(' ').length) || !isValidMnemonic(phrase)) throw new Error(INVALID);
    return phrase;
  },
  publicInfoOf(phrase: string) {
    const account = HDNodeWallet.fromPhrase(phrase, undefined, DEPOSIT_ACCOUNT_PATH);
    const hot = HDNodeWallet.fromPhrase(phrase, undefined, HOT_WALLET_PATH);
    return { depositXpub: account.neuter().extendedKey, hotAddress: this.addressOfPublicKey(hot.signingKey.publicKey) };
  },
  privateKey: (phrase: string, path: string) => HDNodeWallet.fromPhrase(phrase, undefined, path).privateKey.slice(2),
  address(phrase: string, path: string): string {
    return this.addressOfPublicKey(HDNodeWallet.fromPhrase(phrase, undefined, path).signingKey.publicKey);
  },
};

/** Mnemonics made by ethers from fresh entropy: 12 and 24 words mostly, one of each other length. */
const MNEMONICS = [16, 16, 16, 16, 20, 24, 28, 32, 32, 32, 32].map(
  (bytes) => Mnemonic.fromEntropy(randomBytes(bytes)).phrase,
);

describe('HD derivation equals ethers', () => {
  it("the vectors of docs/tron.md: m/44'/195'/0'/0/0, /1, /2 from the seed and from the xpub", () => {
    const chain = new DepositKeyChain(publicInfoOf(TEST_MNEMONIC).depositXpub);
    expect([0, 1, 2].map((i) => chain.addressAt(i))).toEqual(VECTORS);
    expect([0, 1, 2].map((i) => tronAddressOfPrivateKey(depositPrivateKey(TEST_MNEMONIC, i)))).toEqual(VECTORS);
    expect([0, 1, 2].map((i) => before.address(TEST_MNEMONIC, `${DEPOSIT_ACCOUNT_PATH}/${i}`))).toEqual(VECTORS);
    expect(VECTORS).toEqual([
      'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
      'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK',
      'TYJPRrdB5APNeRs4R7fYZSwW3TcrTKw2gx',
    ]);
  });

  it(`publicInfoOf, the private keys and the deposit addresses of ${MNEMONICS.length} random mnemonics (12 to 24 words)`, () => {
    for (const phrase of [TEST_MNEMONIC, ...MNEMONICS]) {
      const info = publicInfoOf(phrase);
      expect(info, phrase).toEqual(before.publicInfoOf(phrase));
      expect(hotWalletPrivateKey(phrase), phrase).toBe(before.privateKey(phrase, HOT_WALLET_PATH));
      const chain = new DepositKeyChain(info.depositXpub);
      for (const index of [0, 1, 2, randomInt(3, 2 ** 20), randomInt(2 ** 20, 2 ** 31), 2 ** 31 - 1]) {
        const path = `${DEPOSIT_ACCOUNT_PATH}/${index}`;
        const key = depositPrivateKey(phrase, index);
        expect(key, `${phrase} ${index}`).toBe(before.privateKey(phrase, path));
        expect(chain.addressAt(index), `${phrase} ${index}`).toBe(before.address(phrase, path));
        expect(tronAddressOfPrivateKey(key)).toBe(chain.addressAt(index));
      }
    }
  });

  it('tronAddressOfPrivateKey and tronAddressOfPublicKey equal TronWeb on 2,000 random keys', () => {
    for (let i = 0; i < 2_000; i++) {
      const key = new SigningKey(`0x${randomBytes(32).toString('hex')}`);
      const expected = TronWeb.address.fromPrivateKey(key.privateKey.slice(2));
      expect(tronAddressOfPrivateKey(key.privateKey.slice(2))).toBe(expected);
      expect(tronAddressOfPublicKey(Buffer.from(key.publicKey.slice(2), 'hex'))).toBe(expected);
    }
    expect(() => tronAddressOfPrivateKey('00'.repeat(32))).toThrow('could not derive an address from a key');
  });

  it('generated mnemonics are 24 words that ethers reads back as the same phrase', () => {
    for (let i = 0; i < 20; i++) {
      const phrase = generateMnemonic();
      expect(phrase.split(' ')).toHaveLength(24);
      expect(Mnemonic.fromPhrase(phrase).phrase).toBe(phrase);
    }
  });

  it('normaliseMnemonic accepts and refuses what it did with ethers, and the keys still agree', () => {
    const words = Mnemonic.fromEntropy(randomBytes(16)).wordlist;
    const anyWord = fc.integer({ min: 0, max: 2047 }).map((i) => words.getWord(i));
    const space = fc.constantFrom(' ', '  ', '\t', '\n', '\u00a0', '\u3000', '\r\n');
    // Letters that NFKD or toLowerCase turn into ASCII, and some that they do not.
    const oddLetter = fc.constantFrom(
      'ａ',
      'Ａ',
      'ｂ',
      'K' /* Kelvin */,
      'ℌ',
      'ⓐ',
      'é',
      '¨',
      'ﬁ',
      'İ',
      'ß',
      '\u0301',
      '0',
    );
    const mutation = fc.oneof(
      fc.constant((w: string[]) => w),
      fc.constant((w: string[]) => w.map((x) => x.toUpperCase())),
      fc.tuple(fc.nat(), anyWord).map(
        ([at, word]) =>
          (w: string[]) =>
            w.map((x, i) => (i === at % w.length ? word : x)),
      ),
      fc.nat().map((at) => (w: string[]) => w.filter((_, i) => i !== at % w.length)),
      fc.tuple(fc.nat(), fc.nat(), oddLetter).map(
        ([at, pos, c]) =>
          (w: string[]) =>
            w.map((x, i) => (i === at % w.length ? x.slice(0, pos % x.length) + c + x.slice((pos % x.length) + 1) : x)),
      ),
      fc.tuple(fc.nat(), oddLetter).map(
        ([at, c]) =>
          (w: string[]) =>
            w.map((x, i) => (i === at % w.length ? x + c : x)),
      ),
      fc.nat().map((at) => (w: string[]) => w.map((x, i) => (i === at % w.length ? fullWidth(x) : x))),
      fc.constant((w: string[]) => [...w, ...w.slice(0, 3)]),
    );
    const seeds = [TEST_MNEMONIC, ...MNEMONICS.slice(0, 4), MNEMONICS.at(-1)!];
    let accepted = 0;
    let keysCompared = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds),
        fc.array(mutation, { maxLength: 2 }),
        fc.array(space, { minLength: 30, maxLength: 30 }),
        fc.boolean(),
        (phrase, mutations, spaces, pad) => {
          const mutated = mutations.reduce((w, m) => m(w), phrase.split(' '));
          const text =
            (pad ? ' \n' : '') +
            mutated.map((w, i) => (i === 0 ? w : spaces[i % spaces.length] + w)).join('') +
            (pad ? '\t ' : '');
          let expected: string | Error;
          try {
            expected = before.normaliseMnemonic(text);
          } catch (e) {
            expected = e as Error;
          }
          if (expected instanceof Error) {
            expect(() => normaliseMnemonic(text), JSON.stringify(text)).toThrow(INVALID);
            expect(() => publicInfoOf(text)).toThrow(INVALID);
            return;
          }
          accepted++;
          expect(normaliseMnemonic(text), JSON.stringify(text)).toBe(expected);
          // Deriving costs PBKDF2s and BIP32 steps: compare the keys of the phrases that differ from
          // the one they came from, and of a few that do not.
          if ((expected !== phrase && keysCompared < 60) || keysCompared < 5) {
            keysCompared++;
            expect(publicInfoOf(expected)).toEqual(before.publicInfoOf(expected));
            expect(depositPrivateKey(expected, 7)).toBe(before.privateKey(expected, `${DEPOSIT_ACCOUNT_PATH}/7`));
          }
        },
      ),
      { numRuns: 600 },
    );
    // Both sides of the comparison ran: valid phrases (some with odd letters) and invalid ones.
    expect(accepted).toBeGreaterThan(100);
    expect(keysCompared).toBeGreaterThan(20);
  });

  it('full-width letters and the Kelvin sign are the ASCII words, for ethers and for us', () => {
    const fullWidth = TEST_MNEMONIC.replace(/^abandon/, 'ａｂａｎｄｏｎ');
    // A BIP39 test vector with a k; the Kelvin sign lower-cases to an ASCII k.
    const kelvin = 'legal winner thanK year wave sausage worth useful legal winner thank yellow';
    for (const text of [fullWidth, kelvin, `ＡＢＡＮＤＯＮ ${TEST_MNEMONIC.split(' ').slice(1).join(' ')}`]) {
      const phrase = before.normaliseMnemonic(text);
      expect(normaliseMnemonic(text)).toBe(phrase);
      expect(publicInfoOf(phrase)).toEqual(before.publicInfoOf(phrase));
      expect(hotWalletPrivateKey(phrase)).toBe(before.privateKey(phrase, HOT_WALLET_PATH));
    }
    expect(publicInfoOf(fullWidth)).toEqual(publicInfoOf(TEST_MNEMONIC));
  });

  it('the signer functions read un-normalised phrases as ethers did (case, inner whitespace)', () => {
    const text = TEST_MNEMONIC.toUpperCase().replace(/ /g, ' \t ');
    expect(publicInfoOf(text)).toEqual(before.publicInfoOf(text));
    expect(depositPrivateKey(text, 3)).toBe(before.privateKey(text, `${DEPOSIT_ACCOUNT_PATH}/3`));
    expect(hotWalletPrivateKey(text)).toBe(before.privateKey(text, HOT_WALLET_PATH));
  });

  it('the deposit chain refuses an xprv, another depth, and an xpub with a broken checksum', () => {
    const account = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, DEPOSIT_ACCOUNT_PATH);
    expect(() => new DepositKeyChain(account.extendedKey)).toThrow(
      'the deposit account key must be an xpub, not an xprv',
    );
    const master = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, 'm').neuter().extendedKey;
    expect(() => new DepositKeyChain(master)).toThrow(
      `the deposit xpub must be at depth 4 (${DEPOSIT_ACCOUNT_PATH}), got 0`,
    );
    const xpub = account.neuter().extendedKey;
    // A typo in the checksum characters: ethers read it (it skips the checksum of an 82-byte key).
    const at = xpub.length - 3;
    const typo = xpub.slice(0, at) + (xpub[at] === 'a' ? 'b' : 'a') + xpub.slice(at + 1);
    expect(HDNodeWallet.fromExtendedKey(typo).publicKey).toBe(account.publicKey);
    expect(() => new DepositKeyChain(typo)).toThrow(/checksum/i);
    expect(new DepositKeyChain(xpub).addressAt(0)).toBe(VECTORS[0]);
  });
});
