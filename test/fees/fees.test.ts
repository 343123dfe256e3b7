/** Fee schedules: confirmations, valid-from, scheduled rates, the fee arithmetic, and the CLI. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { ManualClock } from '../../src/clock.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import {
  invoiceAmounts,
  invoiceFeeAt,
  parseValidFrom,
  serviceFeeAt,
  setInvoiceFee,
  setServiceFee,
} from '../../src/fees/service.js';
import { createMerchant } from '../../src/merchants/service.js';
import { tempDir } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { openTestDatabase, testDatabaseUrl } from '../helpers/database.js';

describe('fee schedules', () => {
  let database: Database;
  let mid: string;
  const clock = new ManualClock('2026-03-01T10:00:00Z');
  const catalog = loadCatalog('devnet');
  const at = (iso: string) => new Date(iso).toISOString();
  beforeAll(async () => {
    database = await openTestDatabase(path.join(tempDir(), 'f.db'));
    await migrateToLatest(database.db);
    mid = (await createMerchant(database.db, clock, 'op', { name: 'M' })).merchant_id;
  });
  afterAll(() => database.close());

  it('service fee: default 0 % merchant; above 3 % needs confirmation; past valid-from refused; scheduled rates start on time', async () => {
    const db = database.db;
    expect(await serviceFeeAt(db, mid, clock.now().toISOString())).toEqual({ percent: '0', payer: 'merchant' });
    await expect(setServiceFee(db, clock, 'op', mid, { percent: '3.000001', payer: 'merchant' })).rejects.toMatchObject(
      { code: 'service_fee_confirmation_required' },
    );
    expect(await setServiceFee(db, clock, 'op', mid, { percent: '3', payer: 'merchant' })).toMatchObject({
      percent: '3',
      valid_from: clock.now().toISOString(),
    });
    expect(
      await setServiceFee(db, clock, 'op', mid, { percent: '3.5', payer: 'customer', confirmHighRate: true }),
    ).toMatchObject({ percent: '3.5' });
    await expect(
      setServiceFee(db, clock, 'op', mid, { percent: '1', payer: 'merchant', validFrom: '2026-03-01T09:59:59Z' }),
    ).rejects.toMatchObject({ code: 'service_fee_valid_from_in_past' });
    await expect(
      setServiceFee(db, clock, 'op', mid, { percent: '1', payer: 'merchant', validFrom: 'tomorrow' }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(
      setServiceFee(db, clock, 'op', mid, { percent: '1.1234567', payer: 'merchant' }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(
      setServiceFee(db, clock, 'op', mid, { percent: '100', payer: 'merchant', confirmHighRate: true }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(setServiceFee(db, clock, 'op', mid, { percent: '1', payer: 'nobody' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(setServiceFee(db, clock, 'op', 'nope', { percent: '1', payer: 'merchant' })).rejects.toMatchObject({
      code: 'merchant_not_found',
    });

    await setServiceFee(db, clock, 'op', mid, {
      percent: '1.25',
      payer: 'merchant',
      validFrom: '2026-03-02T00:00:00+02:00',
    });
    expect(await serviceFeeAt(db, mid, at('2026-03-01T21:59:59.999Z'))).toEqual({ percent: '3.5', payer: 'customer' });
    expect(await serviceFeeAt(db, mid, at('2026-03-01T22:00:00Z'))).toEqual({ percent: '1.25', payer: 'merchant' });
  });

  it('fixed receiving amount: above 5 units needs confirmation; unknown asset → asset_not_supported; 0 removes it', async () => {
    const db = database.db;
    expect(await invoiceFeeAt(db, 'USDT_TRON', clock.now().toISOString())).toBe(0n);
    await expect(
      setInvoiceFee(db, clock, 'op', catalog, { asset: 'USDT_TRON', amount: '5.000001' }),
    ).rejects.toMatchObject({ code: 'invoice_fee_confirmation_required' });
    await setInvoiceFee(db, clock, 'op', catalog, { asset: 'USDT_TRON', amount: '5' });
    expect(await invoiceFeeAt(db, 'USDT_TRON', clock.now().toISOString())).toBe(5_000_000n);
    await setInvoiceFee(db, clock, 'op', catalog, { asset: 'USDD_TRON', amount: '6', confirmHighAmount: true });
    expect(await invoiceFeeAt(db, 'USDD_TRON', clock.now().toISOString())).toBe(6n * 10n ** 18n);
    await expect(setInvoiceFee(db, clock, 'op', catalog, { asset: 'DOGE_TRON', amount: '1' })).rejects.toMatchObject({
      code: 'asset_not_supported',
    });
    await expect(
      setInvoiceFee(db, clock, 'op', catalog, { asset: 'USDT_TRON', amount: '1', validFrom: '2020-01-01T00:00:00Z' }),
    ).rejects.toMatchObject({ code: 'invoice_fee_valid_from_in_past' });
    await expect(
      setInvoiceFee(db, clock, 'op', catalog, { asset: 'USDT_TRON', amount: '0.0000001' }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    clock.advance(1000);
    await setInvoiceFee(db, clock, 'op', catalog, { asset: 'USDT_TRON', amount: '0' });
    expect(await invoiceFeeAt(db, 'USDT_TRON', clock.now().toISOString())).toBe(0n);
  });

  it('invoice amounts: percent rounded up to the base unit plus the fixed amount; the customer pays on top', () => {
    expect(invoiceAmounts(10_000_001n, { percent: '1.5', payer: 'customer' }, 0n)).toEqual({
      payer: 'customer',
      percent: '1.5',
      fixed: 0n,
      fee: 150_001n,
      expected: 10_150_002n,
    });
    expect(invoiceAmounts(100n, { percent: '0.000001', payer: 'merchant' }, 7n)).toEqual({
      payer: 'merchant',
      percent: '0.000001',
      fixed: 7n,
      fee: 8n,
      expected: 100n,
    });
    expect(invoiceAmounts(200n, { percent: '0.5', payer: 'merchant' }, 0n).fee).toBe(1n); // exact: no rounding
    expect(invoiceAmounts(201n, { percent: '0.5', payer: 'merchant' }, 0n).fee).toBe(2n); // 1.005 → 2
    expect(invoiceAmounts(10n ** 30n, { percent: '0', payer: 'customer' }, 0n).expected).toBe(10n ** 30n);
  });
});

describe('CLI: fee service and fee invoice', () => {
  // The other refusals are covered above at the service level; this checks the commands' wiring.
  it('set fees and print the spec error codes', async () => {
    const dir = tempDir();
    const env = { DATABASE_URL: (await testDatabaseUrl(path.join(dir, 'p.db'))).url, TRON_NETWORK: 'devnet' };
    const m = await runCli(['merchant', 'create', '--name', 'Shop', '--json'], env);
    const id = m.json.merchant_id as string;
    const cases: Array<[string[], string]> = [
      [['fee', 'service', id, '--percent', '4', '--payer', 'merchant'], 'service_fee_confirmation_required'],
      [
        ['fee', 'invoice', '--asset', 'USDT_TRON', '--amount', '1', '--valid-from', '2001-01-01T00:00:00Z'],
        'invoice_fee_valid_from_in_past',
      ],
      [['fee', 'invoice', '--asset', 'DOGE_TRON', '--amount', '1'], 'asset_not_supported'],
    ];
    for (const [args, code] of cases) {
      const r = await runCli([...args, '--json'], env);
      expect([r.code, r.json?.error?.code], args.join(' ')).toEqual([1, code]);
    }
    const ok = await runCli(
      ['fee', 'service', id, '--percent', '4', '--payer', 'customer', '--confirm-high-rate', '--json'],
      env,
    );
    expect(ok.json).toMatchObject({ merchant_id: id, percent: '4', payer: 'customer' });
    const inv = await runCli(
      ['fee', 'invoice', '--asset', 'USDT_TRON', '--amount', '6', '--confirm-high-amount', '--json'],
      env,
    );
    expect(inv.json).toMatchObject({ asset: 'USDT_TRON', amount: '6' });
  });
});

describe('--valid-from', () => {
  it('refuses impossible dates instead of rolling them over', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z');
    for (const bad of [
      '2026-02-30T00:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-03-01T10:60:00Z',
    ]) {
      expect(() => parseValidFrom(bad, clock, 'service_fee_valid_from_in_past'), bad).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
    expect(parseValidFrom('2026-03-01T10:30:00+02:00', clock, 'service_fee_valid_from_in_past')).toBe(
      '2026-03-01T08:30:00.000Z',
    );
    expect(() => parseValidFrom('2025-12-31T23:59:59Z', clock, 'service_fee_valid_from_in_past')).toThrow(
      expect.objectContaining({ code: 'service_fee_valid_from_in_past' }),
    );
  });
});
