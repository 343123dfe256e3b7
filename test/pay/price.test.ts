/** Dollar prices: exact decimal text, the pegged catalog entries, and which asset can hold a price. */
import { describe, expect, it } from 'vitest';
import { loadCatalog, parseCatalog } from '../../src/assets/catalog.js';
import { TRON_NETWORKS } from '../../src/config.js';
import { AmountError } from '../../src/money.js';
import { parsePrice, priceInAsset } from '../../src/pay/price.js';

describe('dollar-pegged assets', () => {
  it('marks USDT, USDC and USDD pegged and TRX not, on every network', () => {
    for (const n of TRON_NETWORKS) {
      const c = loadCatalog(n);
      for (const a of c.assets) expect(a.usdPegged).toBe(a.code !== 'TRX_TRON');
    }
    const devnet = loadCatalog('devnet');
    expect(['USDT_TRON', 'USDC_TRON', 'USDD_TRON'].every((code) => devnet.get(code)?.usdPegged)).toBe(true);
  });

  it('refuses a pegged native asset and reads a missing flag as not pegged', () => {
    const entry = {
      code: 'TRX_TRON',
      symbol: 'TRX',
      name: 'TRON',
      type: 'native',
      contract: null,
      decimals: 6,
      minimum_deposit: '1',
      payments: true,
      payouts: true,
      receive_only: false,
      locked: [],
    };
    expect(parseCatalog('devnet', { network: 'devnet', assets: [entry] }).get('TRX_TRON')?.usdPegged).toBe(false);
    expect(() => parseCatalog('devnet', { network: 'devnet', assets: [{ ...entry, usd_pegged: true }] })).toThrow(
      /not pegged/,
    );
    expect(() => parseCatalog('devnet', { network: 'devnet', assets: [{ ...entry, usd_pegged: 'yes' }] })).toThrow(
      /usd_pegged/,
    );
  });
});

describe('prices', () => {
  it('keeps the exact digits of prices far beyond a float', () => {
    expect(parsePrice('10')).toEqual({ text: '10', fractionDigits: 0 });
    expect(parsePrice('10.50')).toEqual({ text: '10.5', fractionDigits: 1 });
    expect(parsePrice('0.000000000000000001')).toEqual({ text: '0.000000000000000001', fractionDigits: 18 });
    const big = '123456789012345678901234567890.123456';
    expect(parsePrice(big).text).toBe(big);
    const usdt = loadCatalog('devnet').get('USDT_TRON');
    expect(priceInAsset(parsePrice(big), usdt!)).toBe(123456789012345678901234567890123456n);
  });

  it('refuses text that is not a positive plain decimal', () => {
    for (const bad of ['', '0', '0.000', '-1', '1e3', '01', '1.', '.5', ' 1', '1,5', 'NaN'])
      expect(() => parsePrice(bad), bad).toThrow(AmountError);
  });

  it('offers an asset only when it is pegged and its decimals hold the price', () => {
    const c = loadCatalog('devnet');
    const [usdt, usdd, trx] = ['USDT_TRON', 'USDD_TRON', 'TRX_TRON'].map((code) => c.get(code)!);
    expect(priceInAsset(parsePrice('12.34'), usdt!)).toBe(12_340_000n);
    expect(priceInAsset(parsePrice('0.0000001'), usdt!)).toBeNull();
    expect(priceInAsset(parsePrice('0.0000001'), usdd!)).toBe(100_000_000_000n);
    expect(priceInAsset(parsePrice('5'), trx!)).toBeNull();
  });
});
