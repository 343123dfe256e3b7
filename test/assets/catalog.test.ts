/** The shipped catalogs, their validation, and the operator/merchant switches (service and CLI). */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog, parseCatalog, CatalogError } from '../../src/assets/catalog.js';
import {
  assertReceivable,
  listAssets,
  receivableAssets,
  setAssetFlags,
  setMerchantAsset,
} from '../../src/assets/service.js';
import { ManualClock } from '../../src/clock.js';
import { TRON_NETWORKS } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { DEVNET_TOKENS } from '../../src/devnet/keys.js';
import { createMerchant } from '../../src/merchants/service.js';
import { listAudit } from '../../src/audit/store.js';
import { tempDir } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { openTestDatabase, testDatabaseUrl } from '../helpers/database.js';

const entry = (over: Record<string, unknown> = {}) => ({
  code: 'USDT_TRON',
  symbol: 'USDT',
  name: 'Tether',
  type: 'trc20',
  contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  decimals: 6,
  minimum_deposit: '1',
  payments: true,
  payouts: true,
  receive_only: false,
  locked: [],
  ...over,
});

describe('asset catalog files', () => {
  it('loads and validates the catalog of every network', () => {
    for (const n of TRON_NETWORKS) {
      const c = loadCatalog(n);
      expect(c.get('USDT_TRON')?.decimals).toBe(6);
      expect(c.get('TRX_TRON')).toMatchObject({ type: 'native', contract: null });
    }
    expect(loadCatalog('mainnet').get('USDT_TRON')?.contract).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    expect(loadCatalog('mainnet').get('USDD_TRON')).toMatchObject({ decimals: 18, receiveOnly: true, payouts: false });
  });

  it('devnet contracts are the devnet node’s token contracts', () => {
    const c = loadCatalog('devnet');
    for (const t of DEVNET_TOKENS) expect(c.get(t.asset)).toMatchObject({ contract: t.address, decimals: t.decimals });
  });

  it('rejects broken catalogs', () => {
    const bad: Array<Record<string, unknown>> = [
      { code: 'usdt' },
      { decimals: 31 },
      { contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u' }, // bad checksum
      { type: 'native' }, // native with a contract
      { minimum_deposit: '0' },
      { minimum_deposit: '0.0000001' },
      { receive_only: true }, // payouts still on
      { locked: ['fees'] },
      { payments: 'yes' },
    ];
    for (const over of bad)
      expect(
        () => parseCatalog('mainnet', { network: 'mainnet', assets: [entry(over)] }),
        JSON.stringify(over),
      ).toThrow(CatalogError);
    expect(() => parseCatalog('mainnet', { network: 'nile', assets: [entry()] })).toThrow(CatalogError);
    expect(() => parseCatalog('mainnet', { network: 'mainnet', assets: [entry(), entry()] })).toThrow(/duplicate/);
  });
});

describe('asset switches', () => {
  let database: Database;
  const clock = new ManualClock('2026-03-01T10:00:00Z');
  const catalog = parseCatalog('mainnet', {
    network: 'mainnet',
    assets: [
      entry(),
      entry({
        code: 'USDD_TRON',
        contract: 'TXDk8mbtRbXeYuMNS83CfKPaYYT8XWv9Hz',
        decimals: 18,
        payouts: false,
        receive_only: true,
        locked: ['payouts'],
      }),
      entry({
        code: 'OLD_TRON',
        contract: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8',
        payments: false,
        locked: ['payments'],
      }),
    ],
  });
  beforeAll(async () => {
    database = await openTestDatabase(path.join(tempDir(), 'a.db'));
    await migrateToLatest(database.db);
  });
  afterAll(() => database.close());

  it('switches flags, refuses locked ones and unknown assets, and audits', async () => {
    const db = database.db;
    expect((await setAssetFlags(db, clock, 'op', catalog, 'USDT_TRON', { payouts: false })).payouts).toBe(false);
    expect((await listAssets(db, catalog)).find((a) => a.asset === 'USDT_TRON')).toMatchObject({
      payments: true,
      payouts: false,
    });
    await expect(setAssetFlags(db, clock, 'op', catalog, 'USDD_TRON', { payouts: true })).rejects.toMatchObject({
      code: 'asset_flag_locked',
    });
    expect((await setAssetFlags(db, clock, 'op', catalog, 'USDD_TRON', { payouts: false })).payouts).toBe(false); // locked value: no-op
    await expect(setAssetFlags(db, clock, 'op', catalog, 'NOPE_TRON', { payments: true })).rejects.toMatchObject({
      code: 'asset_not_found',
    });
    await expect(setAssetFlags(db, clock, 'op', catalog, 'USDT_TRON', {})).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    expect((await listAudit(db, 'asset', 'USDT_TRON')).map((a) => a.action)).toEqual(['asset.set']);
  });

  it('decides receivability: unknown or locked-off → asset_not_supported, operator off → asset_payments_disabled, merchant off → asset_disabled_by_merchant', async () => {
    const db = database.db;
    const m = await createMerchant(db, clock, 'op', { name: 'M' });
    const mid = m.merchant_id;
    await expect(assertReceivable(db, catalog, mid, 'NOPE_TRON')).rejects.toMatchObject({
      code: 'asset_not_supported',
    });
    await expect(assertReceivable(db, catalog, mid, 'OLD_TRON')).rejects.toMatchObject({ code: 'asset_not_supported' });
    await setAssetFlags(db, clock, 'op', catalog, 'USDD_TRON', { payments: false });
    await expect(assertReceivable(db, catalog, mid, 'USDD_TRON')).rejects.toMatchObject({
      code: 'asset_payments_disabled',
    });
    await setMerchantAsset(db, clock, 'op', catalog, mid, 'USDT_TRON', false);
    await expect(assertReceivable(db, catalog, mid, 'USDT_TRON')).rejects.toMatchObject({
      code: 'asset_disabled_by_merchant',
    });
    expect(await receivableAssets(db, catalog, mid)).toEqual([]);
    await setMerchantAsset(db, clock, 'op', catalog, mid, 'USDT_TRON', true);
    expect(await receivableAssets(db, catalog, mid)).toEqual(['USDT_TRON']);
    await expect(
      setMerchantAsset(db, clock, 'op', catalog, 'no-such-merchant', 'USDT_TRON', false),
    ).rejects.toMatchObject({ code: 'merchant_not_found' });
    await expect(setMerchantAsset(db, clock, 'op', catalog, mid, 'NOPE_TRON', false)).rejects.toMatchObject({
      code: 'asset_not_supported',
    });
  });
});

describe('CLI: asset list, asset set, merchant asset, merchant update', () => {
  it('works end to end with the error codes of the spec', async () => {
    const dir = tempDir();
    const env = { DATABASE_URL: (await testDatabaseUrl(path.join(dir, 'p.db'))).url, TRON_NETWORK: 'devnet' };
    const set = await runCli(['asset', 'set', 'USDT_TRON', '--payouts', 'off', '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toMatchObject({ asset: 'USDT_TRON', payments: true, payouts: false });
    const list = await runCli(['asset', 'list', '--json'], env);
    expect(list.json.next_cursor).toBeNull();
    expect(list.json.data.map((a: { asset: string }) => a.asset)).toEqual([
      'USDT_TRON',
      'USDC_TRON',
      'USDD_TRON',
      'TRX_TRON',
    ]);
    expect(list.json.data[0]).toMatchObject({ payouts: false, minimum_deposit: '1' });
    const locked = await runCli(['asset', 'set', 'USDD_TRON', '--payouts', 'on', '--json'], env);
    expect([locked.code, locked.json.error.code]).toEqual([1, 'asset_flag_locked']);
    const m = await runCli(['merchant', 'create', '--name', 'Shop', '--json'], env);
    const off = await runCli(['merchant', 'asset', m.json.merchant_id, 'TRX_TRON', '--payments', 'off', '--json'], env);
    expect(off.json).toEqual({ merchant_id: m.json.merchant_id, asset: 'TRX_TRON', payments: false });
    const upd = await runCli(
      [
        'merchant',
        'update',
        m.json.merchant_id,
        '--site-url',
        'https://shop.example/',
        '--return-url',
        'https://t.me/shop_bot',
        '--confirmations',
        '25',
        '--json',
      ],
      env,
    );
    expect(upd.json).toMatchObject({
      site_url: 'https://shop.example',
      return_url: 'https://t.me/shop_bot',
      cancel_url: null,
      confirmations: 25,
    });
  });
});
