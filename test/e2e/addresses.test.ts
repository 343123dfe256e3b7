/** POST /v1/addresses over real HTTP: one permanent address per (merchant, user), and its errors. */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { setAssetFlags, setMerchantAsset } from '../../src/assets/service.js';
import { changeMerchant } from '../../src/merchants/service.js';
import { api, isErrorBody } from '../helpers/http.js';
import { newInvoice, startInvoiceApp, VECTORS, type InvoiceTestApp } from '../invoices/fixture.js';

const expectError = (r: { status: number; body: any }, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(isErrorBody(r.body)).toBe(true);
  expect(r.body.error.code).toBe(code);
};

describe('permanent addresses', () => {
  let t: InvoiceTestApp;
  let key: string;
  let merchantId: string;
  const address = (user: string, k = key, over: Record<string, unknown> = {}) =>
    api(t.url, '/v1/addresses', { key: k, body: { external_user_id: user, network: 'tron', ...over } });

  beforeAll(async () => {
    t = await startInvoiceApp();
    const m = await t.merchant({ name: 'Per user', addressMode: 'per_user' });
    key = m.key;
    merchantId = m.merchant.merchant_id;
  });
  afterAll(() => t.close());

  it('returns one stable address per user, with exactly the spec keys and the accepted assets', async () => {
    const a = await address('alice');
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      address: VECTORS[0],
      network: 'tron',
      assets: ['USDT_TRON', 'USDC_TRON', 'USDD_TRON', 'TRX_TRON'],
    });
    expect((await address('alice')).body.address).toBe(VECTORS[0]);
    expect((await address('bob')).body.address).toBe(VECTORS[1]);
    expect((await address('Alice')).body.address).toBe(VECTORS[2]); // ids are case-sensitive
  });

  it('lists only the assets accepted there now (operator and merchant switches)', async () => {
    const { db, clock, catalog } = t.app.services;
    await setAssetFlags(db, clock, 'test', catalog, 'USDD_TRON', { payments: false });
    await setMerchantAsset(db, clock, 'test', catalog, merchantId, 'TRX_TRON', false);
    expect((await address('alice')).body.assets).toEqual(['USDT_TRON', 'USDC_TRON']);
    await setAssetFlags(db, clock, 'test', catalog, 'USDD_TRON', { payments: true });
    await setMerchantAsset(db, clock, 'test', catalog, merchantId, 'TRX_TRON', true);
    expect((await address('alice')).body.assets).toHaveLength(4);
  });

  it('gives concurrent first requests for one user a single address', async () => {
    const rs = await Promise.all(Array.from({ length: 12 }, () => address('carol')));
    expect(rs.every((r) => r.status === 200)).toBe(true);
    expect(new Set(rs.map((r) => r.body.address)).size).toBe(1);
    const rows = await t.app.services.db
      .selectFrom('deposit_addresses')
      .selectAll()
      .where('external_user_id', '=', 'carol')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('keeps users of different merchants apart', async () => {
    const other = await t.merchant({ name: 'Other per user', addressMode: 'per_user' });
    const mine = (await address('dave')).body.address;
    const theirs = (await address('dave', other.key)).body.address;
    expect(theirs).not.toBe(mine);
  });

  it('refuses per_invoice merchants (409), unapproved ones (403), disabled ones (403) and bad bodies (400)', async () => {
    const perInvoice = await t.merchant({ name: 'Per invoice' });
    expectError(await address('x', perInvoice.key), 409, 'address_mode_mismatch');
    const pending = await t.merchant({ name: 'Pending', addressMode: 'per_user', approve: false });
    expectError(await address('x', pending.key), 403, 'merchant_not_approved');
    const disabled = await t.merchant({ name: 'Disabled', addressMode: 'per_user' });
    await changeMerchant(t.app.services.db, t.app.services.clock, 'test', disabled.merchant.merchant_id, 'disable');
    expectError(await address('x', disabled.key), 403, 'merchant_disabled');
    for (const [over, path] of [
      [{ network: 'ethereum' }, 'body.network'],
      [{ external_user_id: 'with space' }, 'body.external_user_id'],
      [{ external_user_id: '' }, 'body.external_user_id'],
      [{ external_user_id: 'é' }, 'body.external_user_id'],
      [{ asset: 'USDT_TRON' }, 'body.asset'],
    ] as const) {
      const r = await address('x', key, over);
      expectError(r, 400, 'validation_failed');
      expect(r.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const noNetwork = await api(t.url, '/v1/addresses', { key, body: { external_user_id: 'x' } });
    expectError(noNetwork, 400, 'validation_failed');
  });

  it('keeps addresses across a restart of the app on the same database', async () => {
    const before = (await address('erin')).body.address;
    const config = t.app.config;
    await t.app.stop();
    const again = await buildApp(config, { clock: t.clock, workers: false });
    try {
      t.url = await again.start();
      expect((await address('erin')).body.address).toBe(before);
      // And the index counter continues: a new user never gets an address handed out before.
      const fresh = (await address('frank')).body.address;
      const all = await again.services.db.selectFrom('deposit_addresses').select('address').execute();
      expect(all.filter((r) => r.address === fresh)).toHaveLength(1);
    } finally {
      await again.stop();
    }
  });
});

describe('address index exhaustion', () => {
  let t: InvoiceTestApp;
  beforeAll(async () => {
    t = await startInvoiceApp({ addresses: { indexLimit: 3 } });
  });
  afterAll(() => t.close());

  it('answers 503 addresses_exhausted once the index space is used up, for addresses and invoices alike', async () => {
    const m = await t.merchant({ name: 'Per user', addressMode: 'per_user' });
    const p = await t.merchant({ name: 'Per invoice' });
    const got = [];
    for (const u of ['a', 'b'])
      got.push(
        (await api(t.url, '/v1/addresses', { key: m.key, body: { external_user_id: u, network: 'tron' } })).body
          .address,
      );
    got.push((await api(t.url, '/v1/invoices', { key: p.key, body: newInvoice() })).body.address);
    expect(got).toEqual(VECTORS);
    expectError(
      await api(t.url, '/v1/addresses', { key: m.key, body: { external_user_id: 'c', network: 'tron' } }),
      503,
      'addresses_exhausted',
    );
    const order = newInvoice();
    expectError(await api(t.url, '/v1/invoices', { key: p.key, body: order }), 503, 'addresses_exhausted');
    // Nothing half-written: the failed invoice does not exist, known users still get their address.
    expect(
      await t.app.services.db
        .selectFrom('invoices')
        .select('id')
        .where('order_id', '=', order.order_id as string)
        .executeTakeFirst(),
    ).toBeUndefined();
    expect(
      (await api(t.url, '/v1/addresses', { key: m.key, body: { external_user_id: 'a', network: 'tron' } })).body
        .address,
    ).toBe(VECTORS[0]);
  });

  it('the real limit is the non-hardened index space (2^31)', async () => {
    const big = await startInvoiceApp();
    try {
      await big.app.services.db
        .updateTable('wallet')
        .set({ next_index: 2 ** 31 - 1 })
        .execute();
      const m = await big.merchant({ name: 'Edge' });
      const last = await api(big.url, '/v1/invoices', { key: m.key, body: newInvoice() });
      expect(last.status).toBe(201);
      expect(
        (await big.app.services.db.selectFrom('deposit_addresses').select('derivation_index').executeTakeFirstOrThrow())
          .derivation_index,
      ).toBe(2 ** 31 - 1);
      expectError(await api(big.url, '/v1/invoices', { key: m.key, body: newInvoice() }), 503, 'addresses_exhausted');
    } finally {
      await big.close();
    }
  });
});

describe('an index BIP32 makes invalid', () => {
  /** The derivation's HMAC with IL = 2^256 - 1 (>= n) for index 1: the child of index 1 is invalid. */
  const hmac = (chainCode: Uint8Array, data: Uint8Array) => {
    const I = createHmac('sha512', chainCode).update(data).digest();
    if (Buffer.from(data).readUInt32BE(33) === 1) I.fill(0xff, 0, 32);
    return I;
  };

  it('is skipped: the creations after index 0 get index 2, and index 1 is never stored', async () => {
    const t = await startInvoiceApp({ addresses: { hmac } });
    try {
      const p = await t.merchant({ name: 'Per invoice' });
      const got = [];
      for (let i = 0; i < 2; i++) got.push((await api(t.url, '/v1/invoices', { key: p.key, body: newInvoice() })).body);
      expect(got.map((b) => b.address)).toEqual([VECTORS[0], VECTORS[2]]);
      const stored = await t.app.services.db.selectFrom('deposit_addresses').select('derivation_index').execute();
      expect(stored.map((r) => r.derivation_index).sort()).toEqual([0, 2]);
    } finally {
      await t.close();
    }
  });
});
