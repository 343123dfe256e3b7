/**
 * Our base58check address codec against TronWeb's, which it replaced on serve's path: the same
 * answers both ways on 20,000 random addresses, and the same refusals. The references are the
 * functions as they were, over TronWeb.
 */
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { TronWeb } from 'tronweb';
import { describe, expect, it } from 'vitest';
import {
  addressBytes,
  addressFromBytes,
  fromHexAddress,
  isTronAddress,
  toHexAddress,
} from '../../src/chain/address.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
// A few thousand random bodies meet every base58 digit in every position; more only adds time.
const RANDOM_ADDRESSES = 3_000;

/** src/chain/address.ts before: TronWeb behind the same guards. */
const before = {
  isTronAddress: (text: string) => /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(text) && TronWeb.isAddress(text),
  toHexAddress: (base58: string) => TronWeb.address.toHex(base58).toLowerCase(),
  fromHexAddress: (full: string) => TronWeb.address.fromHex(full),
};

function checksumOf(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(createHash('sha256').update(bytes).digest()).digest().subarray(0, 4);
}

/** Plain base58 (BigInt arithmetic, unlike the codec under test). */
function base58(payload: Buffer): string {
  let n = BigInt(`0x${payload.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (let i = 0; i < payload.length && payload[i] === 0; i++) out = `1${out}`;
  return out;
}

/** base58check of any bytes: what a wallet of another chain, or a typo, would hand us. */
function base58check(bytes: Uint8Array): string {
  return base58(Buffer.concat([bytes, checksumOf(bytes)]));
}

/** Refused by our codec and by the old TronWeb one alike. */
function expectRefusedLikeTronWeb(text: string): void {
  expect(before.isTronAddress(text), text).toBe(false);
  expect(isTronAddress(text), text).toBe(false);
  expect(() => toHexAddress(text), text).toThrow(`not a TRON address: ${text}`);
  expect(() => addressBytes(text), text).toThrow(`not a TRON address: ${text}`);
}

describe('TRON address codec', () => {
  it(`encodes and decodes ${RANDOM_ADDRESSES} random addresses exactly as TronWeb does`, () => {
    for (let i = 0; i < RANDOM_ADDRESSES; i++) {
      const hex = `41${randomBytes(20).toString('hex')}`;
      const base58 = fromHexAddress(hex);
      expect(base58).toBe(before.fromHexAddress(hex));
      expect(fromHexAddress(hex.slice(2))).toBe(base58); // the 20-byte form of event logs
      expect(addressFromBytes(Buffer.from(hex, 'hex'))).toBe(base58);
      expect(toHexAddress(base58)).toBe(hex);
      expect(before.toHexAddress(base58)).toBe(hex);
      expect(addressBytes(base58).toString('hex')).toBe(hex);
      expect(isTronAddress(base58)).toBe(true);
      expect(before.isTronAddress(base58)).toBe(true);
    }
  });

  it('encodes the extremes of the address space as TronWeb does', () => {
    for (const hex of [
      `41${'00'.repeat(20)}`,
      `41${'ff'.repeat(20)}`,
      `41${'00'.repeat(19)}01`,
      `41ff${'00'.repeat(19)}`,
    ]) {
      const base58 = fromHexAddress(hex);
      expect(base58).toBe(before.fromHexAddress(hex));
      expect(toHexAddress(base58)).toBe(hex);
    }
  });

  it('refuses a bad checksum, as TronWeb does', () => {
    for (let i = 0; i < 500; i++) {
      const body = Buffer.from(`41${randomBytes(20).toString('hex')}`, 'hex');
      const payload = Buffer.concat([body, checksumOf(body)]);
      const good = base58(payload);
      payload[21 + (i % 4)]! ^= 1 << (i % 8);
      expectRefusedLikeTronWeb(base58(payload));
      // One character changed anywhere: almost always a wrong checksum (or no TRON address at all).
      const at = 1 + (i % 33);
      const typo = good.slice(0, at) + BASE58[(BASE58.indexOf(good[at]!) + 1 + (i % 57)) % 58]! + good.slice(at + 1);
      expect(isTronAddress(typo), typo).toBe(before.isTronAddress(typo));
      if (!before.isTronAddress(typo)) expectRefusedLikeTronWeb(typo);
    }
  });

  it('refuses another version byte with a valid checksum (Bitcoin, old TRON testnet), as TronWeb does', () => {
    for (const prefix of [0x00, 0x05, 0x40, 0x42, 0xa0, 0xff]) {
      for (let i = 0; i < 50; i++)
        expectRefusedLikeTronWeb(base58check(Buffer.concat([Buffer.from([prefix]), randomBytes(20)])));
    }
  });

  it('refuses 20-, 22- and 1-byte bodies with a valid checksum, and cut or padded strings, as TronWeb does', () => {
    for (let i = 0; i < 100; i++) {
      const good = fromHexAddress(`41${randomBytes(20).toString('hex')}`);
      for (const bad of [
        base58check(Buffer.concat([Buffer.from([0x41]), randomBytes(19)])),
        base58check(Buffer.concat([Buffer.from([0x41]), randomBytes(21)])),
        base58check(Buffer.from([0x41])),
        good.slice(0, 33),
        `${good}1`,
        `${good}${good}`,
        '',
        'T',
      ]) {
        expectRefusedLikeTronWeb(bad);
      }
    }
  });

  it('refuses characters outside base58 (0, O, I, l, +, space, non-ASCII), as TronWeb does', () => {
    const good = fromHexAddress(`41${randomBytes(20).toString('hex')}`);
    for (const c of ['0', 'O', 'I', 'l', '+', '/', ' ', '\u0000', 'é', 'Т' /* Cyrillic */, '１', '💸']) {
      for (const at of [0, 1, 17, 33]) expectRefusedLikeTronWeb(good.slice(0, at) + c + good.slice(at + 1));
    }
    expectRefusedLikeTronWeb(` ${good.slice(1)}`);
    expectRefusedLikeTronWeb(good.toLowerCase());
  });

  it('agrees with TronWeb on arbitrary strings near the shape of an address', () => {
    const alphabet = fc.constantFrom(...`${BASE58}0OIl +T`.split(''));
    fc.assert(
      fc.property(fc.array(alphabet, { minLength: 30, maxLength: 36 }), (chars) => {
        const text = chars.join('');
        expect(isTronAddress(text)).toBe(before.isTronAddress(text));
      }),
      { numRuns: 3_000 },
    );
  });

  it('fromHexAddress and addressFromBytes refuse what is not a `41…` address', () => {
    const hex = `41${randomBytes(20).toString('hex')}`;
    for (const bad of ['', hex.slice(0, 41), `${hex}00`, `42${hex.slice(2)}`, `41zz${hex.slice(4)}`, `0x${hex}0`]) {
      expect(() => fromHexAddress(bad), bad).toThrow(`not a TRON hex address: ${bad}`);
    }
    expect(fromHexAddress(`0x${hex.toUpperCase()}`)).toBe(before.fromHexAddress(hex));
    expect(() => addressFromBytes(Buffer.from(`42${hex.slice(2)}`, 'hex'))).toThrow();
    expect(() => addressFromBytes(Buffer.from(hex.slice(2), 'hex'))).toThrow();
  });
});
