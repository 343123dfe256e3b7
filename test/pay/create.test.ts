/**
 * Creating page invoices over HTTP (the console's route; the cabinet's and the CLI's call the same
 * service): every answer and refusal of the rules, the one order-id space with /v1 invoices, and
 * that a refusal writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAssetFlags, setMerchantAsset } from '../../src/assets/service.js';
import { listAudit } from '../../src/audit/store.js';
import { changeMerchant } from '../../src/merchants/service.js';
import { api } from '../helpers/http.js';
import { pageBody, startPayApp, type PayTestApp } from './fixture.js';

let t: PayTestApp;
let merchantId: string;
let key: string;

beforeAll(async () => {
  t = await startPayApp();
  const m = await t.merchant({ siteUrl: 'https://shop.example' });
  merchantId = m.merchant.merchant_id;
  key = m.key;
});
afterAll(() => t?.close());

const count = async (table: 'page_invoices' | 'invoices') =>
  Number(
    (
      await t.app.services.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function refused(merchant: string, body: Record<string, unknown>, status: number, code: string) {
  const before = await count('page_invoices');
  const r = await t.createPage(merchant, body);
  expect(r.status, r.text).toBe(status);
  expect(r.body.error.code, r.text).toBe(code);
  expect(await count('page_invoices')).toBe(before);
  return r;
}

describe('creating a page invoice', () => {
  it('answers 201 with the page link, then 200 for the same terms', async () => {
    const body = pageBody({
      price: '19.990',
      description: 'Logo design, two drafts',
      return_url: 'https://shop.example/thanks',
    });
    const r = await t.createPage(merchantId, body);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      order_id: body.order_id,
      status: 'created',
      price: '19.99',
      price_currency: 'USD',
      currencies: ['USDT_TRON', 'USDC_TRON', 'USDD_TRON'],
      asset: null,
      description: 'Logo design, two drafts',
      expires_at: '2026-03-01T10:15:00.000Z',
    });
    expect(r.body.checkout_url).toBe(`${t.pay}/pay/${r.body.invoice_id}`);
    const again = await t.createPage(merchantId, { ...body, price: '19.99' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
    // Once in the audit log, with the console token that made it.
    const audit = await listAudit(t.app.services.db, 'invoice', r.body.invoice_id);
    expect(audit.map((a) => [a.action, a.actor, a.merchant_id])).toEqual([
      ['invoice.page_create', t.tokenId, merchantId],
    ]);
  });

  it('offers only the listed assets, in catalog order', async () => {
    const r = await t.createPage(merchantId, pageBody({ currencies: ['USDD_TRON', 'USDT_TRON'] }));
    expect(r.status, r.text).toBe(201);
    expect(r.body.currencies).toEqual(['USDT_TRON', 'USDD_TRON']);
  });

  it('leaves out silently, without a list, the assets that cannot hold the price', async () => {
    const r = await t.createPage(merchantId, pageBody({ price: '1.0000001' }));
    expect(r.status, r.text).toBe(201);
    expect(r.body.currencies).toEqual(['USDD_TRON']);
  });

  it('keeps one order-id space with /v1 invoices, both ways', async () => {
    const page = pageBody();
    expect((await t.createPage(merchantId, page)).status).toBe(201);
    await refused(merchantId, { ...page, price: '26' }, 409, 'order_id_conflict');
    await refused(merchantId, { ...page, currencies: ['USDT_TRON'] }, 409, 'order_id_conflict');
    await refused(merchantId, { ...page, external_user_id: 'u-1' }, 409, 'order_id_conflict');
    const v1 = await api(t.url, '/v1/invoices', {
      key,
      body: { order_id: page.order_id, asset: 'USDT_TRON', amount: '25', expires_in: 900 },
    });
    expect(v1.status, v1.text).toBe(409);
    expect(v1.body.error.code).toBe('order_id_conflict');

    const order = `v1-${Math.random()}`;
    const made = await api(t.url, '/v1/invoices', {
      key,
      body: { order_id: order, asset: 'USDT_TRON', amount: '25', expires_in: 900 },
    });
    expect(made.status).toBe(201);
    expect(made.body.checkout_url).toBeNull();
    await refused(merchantId, pageBody({ order_id: order }), 409, 'order_id_conflict');
  });

  it('gives an order id sent at once to /v1 and as a page invoice to exactly one of them', async () => {
    const orders = Array.from({ length: 8 }, (_, i) => `race-${i}-${Math.random()}`);
    const answers = await Promise.all(
      orders.flatMap((order) => [
        api(t.url, '/v1/invoices', {
          key,
          body: { order_id: order, asset: 'USDT_TRON', amount: '25', expires_in: 900 },
        }),
        t.createPage(merchantId, pageBody({ order_id: order })),
      ]),
    );
    for (let i = 0; i < orders.length; i++) {
      const pair = [answers[2 * i]!, answers[2 * i + 1]!];
      expect(pair.map((a) => a.status).sort(), JSON.stringify(pair.map((a) => a.body))).toEqual([201, 409]);
      expect(pair.find((a) => a.status === 409)!.body.error.code).toBe('order_id_conflict');
    }
  });

  it('the database itself refuses an order id of the other table', async () => {
    const db = t.app.services.db;
    const page = pageBody();
    const created = await t.createPage(merchantId, page);
    const row = await db.selectFrom('invoices').selectAll().limit(1).executeTakeFirstOrThrow();
    await expect(
      db
        .insertInto('invoices')
        .values({
          ...row,
          id: '00000000-0000-7000-8000-000000000001',
          order_id: page.order_id as string,
          merchant_id: merchantId,
        })
        .execute(),
    ).rejects.toThrow(/order_id_space/);
    await expect(
      db
        .insertInto('page_invoices')
        .values({
          id: '00000000-0000-7000-8000-000000000002',
          merchant_id: row.merchant_id,
          order_id: row.order_id,
          price: '1',
          currencies: '["USDT_TRON"]',
          currencies_requested: null,
          description: null,
          external_user_id: null,
          return_url: null,
          cancel_url: null,
          checkout_url: created.body.checkout_url,
          expires_at: row.expires_at,
          created_at: row.created_at,
          asset: null,
          chosen_at: null,
        })
        .execute(),
    ).rejects.toThrow(/order_id_space/);
  });
});

describe('refusals, each writing nothing', () => {
  it('checks the price and the body', async () => {
    for (const price of ['0', '-1', '1e3', '1,5', '01']) {
      const r = await refused(merchantId, pageBody({ price }), 400, 'validation_failed');
      expect(r.body.error.details).toEqual([{ path: 'body.price', message: expect.any(String) }]);
    }
    await refused(merchantId, pageBody({ description: 'bad\u0007bell' }), 400, 'validation_failed');
    await refused(merchantId, pageBody({ description: 'x'.repeat(201) }), 400, 'validation_failed');
    for (const bidi of ['\u202E', '\u2066', '\u200F', '\u061C']) {
      const r = await refused(
        merchantId,
        pageBody({ description: `Invoice ${bidi}fdp.exe` }),
        400,
        'validation_failed',
      );
      expect(r.body.error.details).toEqual([
        { path: 'body.description', message: expect.stringContaining('bidirectional') },
      ]);
    }
    await refused(merchantId, pageBody({ currencies: [] }), 400, 'validation_failed');
    await refused(merchantId, pageBody({ expires_in: 59 }), 400, 'validation_failed');
  });

  it('answers the offered assets’ codes', async () => {
    await refused(merchantId, pageBody({ currencies: ['DOGE_TRON'] }), 422, 'asset_not_supported');
    await refused(merchantId, pageBody({ currencies: ['TRX_TRON'] }), 422, 'asset_not_offered');
    await refused(merchantId, pageBody({ price: '1.0000001', currencies: ['USDT_TRON'] }), 422, 'asset_not_offered');
    await refused(merchantId, pageBody({ price: '0.5', currencies: ['USDT_TRON'] }), 422, 'amount_below_minimum');
    await setMerchantAsset(t.app.services.db, t.clock, 'test', t.app.services.catalog, merchantId, 'USDC_TRON', false);
    await refused(merchantId, pageBody({ currencies: ['USDC_TRON'] }), 422, 'asset_disabled_by_merchant');
    await setAssetFlags(t.app.services.db, t.clock, 'test', t.app.services.catalog, 'USDD_TRON', { payments: false });
    await refused(merchantId, pageBody({ currencies: ['USDD_TRON'] }), 422, 'asset_payments_disabled');
    const r = await t.createPage(merchantId, pageBody());
    expect(r.body.currencies).toEqual(['USDT_TRON']);
    await refused(merchantId, pageBody({ price: '0.5' }), 422, 'no_payable_assets');
    await setAssetFlags(t.app.services.db, t.clock, 'test', t.app.services.catalog, 'USDD_TRON', { payments: true });
    await setMerchantAsset(t.app.services.db, t.clock, 'test', t.app.services.catalog, merchantId, 'USDC_TRON', true);
  });

  it('holds the merchant rules of /v1', async () => {
    await refused(merchantId, pageBody({ return_url: 'https://evil.example/' }), 422, 'redirect_url_not_allowed');
    const perUser = await t.merchant({ addressMode: 'per_user' });
    await refused(perUser.merchant.merchant_id, pageBody(), 409, 'address_mode_mismatch');
    const pending = await t.merchant({ approve: false });
    await refused(pending.merchant.merchant_id, pageBody(), 403, 'merchant_not_approved');
    const off = await t.merchant();
    await changeMerchant(t.app.services.db, t.clock, 'test', off.merchant.merchant_id, 'disable');
    await refused(off.merchant.merchant_id, pageBody(), 403, 'merchant_disabled');
    await refused('00000000-0000-4000-8000-000000000000', pageBody(), 404, 'merchant_not_found');
  });
});
