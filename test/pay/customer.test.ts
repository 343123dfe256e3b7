/**
 * The customer's side over HTTP, on the payment page's own listener: the page's view, the final
 * choice of the token with every answer, the invoice it opens on /v1 (address, fees, event), and
 * that before the choice /v1 and the webhooks know nothing of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAssetFlags, setMerchantAsset } from '../../src/assets/service.js';
import { setServiceFee } from '../../src/fees/service.js';
import { expireInvoices } from '../../src/invoices/expiry.js';
import { ResponseChecker } from '../helpers/openapi-check.js';
import { api, type ApiRequest } from '../helpers/http.js';
import { pageBody, startPayApp, type PayTestApp } from './fixture.js';

let t: PayTestApp;
let checker: ResponseChecker;
let merchantId: string;
let key: string;

beforeAll(async () => {
  t = await startPayApp();
  checker = new ResponseChecker((await api(t.pay, '/pay/v1/openapi.json')).body);
  const m = await t.merchant({ name: 'Corner Bakery', siteUrl: 'https://bakery.example' });
  merchantId = m.merchant.merchant_id;
  key = m.key;
});
afterAll(() => t?.close());

/** A /pay/v1 request, its answer checked against the served document. */
async function pay(path: string, req: ApiRequest = {}) {
  const r = await api(t.pay, path, req);
  checker.check(req.body === undefined ? 'GET' : 'POST', path, r.status, r.body, 'application/json');
  return r;
}

const events = async (subjectId: string) =>
  t.app.services.db.selectFrom('events').select(['type']).where('subject_id', '=', subjectId).execute();

async function newPage(over: Record<string, unknown> = {}) {
  const r = await t.createPage(merchantId, pageBody(over));
  expect(r.status, r.text).toBe(201);
  return r.body as { invoice_id: string; checkout_url: string; order_id: string };
}

describe('the payment page view', () => {
  it('shows the merchant name, description, price and offered tokens, nothing internal', async () => {
    const page = await newPage({
      price: '12.5',
      description: 'Two croissants',
      cancel_url: 'https://bakery.example/c',
    });
    const r = await pay(`/pay/v1/invoices/${page.invoice_id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      invoice_id: page.invoice_id,
      merchant_name: 'Corner Bakery',
      description: 'Two croissants',
      price: '12.5',
      price_currency: 'USD',
      offered: [
        { asset: 'USDT_TRON', amount: '12.5' },
        { asset: 'USDC_TRON', amount: '12.5' },
        { asset: 'USDD_TRON', amount: '12.5' },
      ],
      status: 'created',
      asset: null,
      address: null,
      amount_expected: null,
      amount_received: null,
      amount_due: null,
      amount_overpaid: null,
      address_permanent: false,
      expires_at: '2026-03-01T10:15:00.000Z',
      choose_by: '2026-03-01T10:10:00.000Z',
      return_url: null,
      cancel_url: 'https://bakery.example/c',
      deposits: [],
      foreign_deposits: [],
    });
    expect(r.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('answers invoice_not_found for an unknown id and for a /v1 invoice; 400 for a malformed id', async () => {
    const v1 = await api(t.url, '/v1/invoices', {
      key,
      body: { order_id: `v1-${Math.random()}`, asset: 'USDT_TRON', amount: '5', expires_in: 900 },
    });
    for (const id of ['00000000-0000-7000-8000-000000000000', v1.body.invoice_id]) {
      const r = await pay(`/pay/v1/invoices/${id}`);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('invoice_not_found');
      const c = await pay(`/pay/v1/invoices/${id}/asset`, { body: { asset: 'USDT_TRON' } });
      expect(c.body.error.code).toBe('invoice_not_found');
    }
    expect((await pay('/pay/v1/invoices/not-a-uuid')).status).toBe(400);
  });

  it('is unknown to /v1 and sends no webhook before the choice, its expiry included', async () => {
    const page = await newPage({ expires_in: 60 });
    const v1 = await api(t.url, `/v1/invoices/${page.invoice_id}`, { key });
    expect(v1.status).toBe(404);
    expect(v1.body.error.code).toBe('invoice_not_found');
    t.clock.advance(61_000);
    // The scheduled expiry job, with the scan horizon past the term: nothing of it is an invoice yet.
    await expireInvoices(t.app.services.db, t.clock, { horizon: t.clock.now() });
    expect((await pay(`/pay/v1/invoices/${page.invoice_id}`)).body.status).toBe('expired');
    expect(await events(page.invoice_id)).toEqual([]);
    expect((await api(t.url, `/v1/invoices/${page.invoice_id}`, { key })).status).toBe(404);
  });

  it('is not served on the /v1 listener', async () => {
    const page = await newPage();
    for (const path of [`/pay/${page.invoice_id}`, `/pay/v1/invoices/${page.invoice_id}`, '/pay/v1/openapi.json']) {
      const r = await api(t.url, path);
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe('route_not_found');
    }
  });
});

describe('the choice of the token', () => {
  it('opens the invoice: 201 with address and amount, 200 again, 409 for another token', async () => {
    const page = await newPage({ price: '40' });
    const r = await pay(`/pay/v1/invoices/${page.invoice_id}/asset`, { body: { asset: 'USDC_TRON' } });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      status: 'created',
      asset: 'USDC_TRON',
      amount_expected: '40',
      amount_received: '0',
    });
    expect(r.body.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);

    const again = await pay(`/pay/v1/invoices/${page.invoice_id}/asset`, { body: { asset: 'USDC_TRON' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
    const other = await pay(`/pay/v1/invoices/${page.invoice_id}/asset`, { body: { asset: 'USDT_TRON' } });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('asset_already_selected');

    const v1 = await api(t.url, `/v1/invoices/${page.invoice_id}`, { key });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({
      invoice_id: page.invoice_id,
      order_id: page.order_id,
      asset: 'USDC_TRON',
      address: r.body.address,
      amount_requested: '40',
      checkout_url: page.checkout_url,
    });
    expect(v1.body).not.toHaveProperty('price');
    // Its order id stays the page invoice's, even for a /v1 request of the very same terms.
    const same = await api(t.url, '/v1/invoices', {
      key,
      body: { order_id: page.order_id, asset: 'USDC_TRON', amount: '40', expires_in: 900 },
    });
    expect([same.status, same.body.error?.code]).toEqual([409, 'order_id_conflict']);
    expect(v1.body).not.toHaveProperty('description');
    expect(await events(page.invoice_id)).toEqual([{ type: 'invoice.created' }]);
    const [event] = await t.app.services.db
      .selectFrom('events')
      .select('data')
      .where('subject_id', '=', page.invoice_id)
      .execute();
    expect(JSON.parse(event!.data)).toEqual(v1.body);
  });

  it('adds the service fee the customer pays to the offered amount and to amount_expected', async () => {
    const m = await t.merchant({ name: 'Fee shop' });
    await setServiceFee(t.app.services.db, t.clock, 'test', m.merchant.merchant_id, {
      percent: '1.5',
      payer: 'customer',
    });
    const created = await t.createPage(m.merchant.merchant_id, pageBody({ price: '10' }));
    const view = await pay(`/pay/v1/invoices/${created.body.invoice_id}`);
    expect(view.body.offered[0]).toEqual({ asset: 'USDT_TRON', amount: '10.15' });
    const r = await pay(`/pay/v1/invoices/${created.body.invoice_id}/asset`, { body: { asset: 'USDT_TRON' } });
    expect(r.body.amount_expected).toBe('10.15');
    const v1 = await api(t.url, `/v1/invoices/${created.body.invoice_id}`, { key: m.key });
    expect(v1.body).toMatchObject({ amount_requested: '10', amount_expected: '10.15' });
  });

  it('gives a per_user merchant’s customer the user’s permanent address', async () => {
    const m = await t.merchant({ addressMode: 'per_user' });
    const address = await api(t.url, '/v1/addresses', {
      key: m.key,
      body: { external_user_id: 'u-7', network: 'tron' },
    });
    expect(address.status, address.text).toBeLessThan(300);
    const created = await t.createPage(m.merchant.merchant_id, pageBody({ external_user_id: 'u-7' }));
    const r = await pay(`/pay/v1/invoices/${created.body.invoice_id}/asset`, { body: { asset: 'USDT_TRON' } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.address).toBe(address.body.address);
    expect(r.body.address_permanent).toBe(true);
  });

  it('refuses: expired, not offered, switched off since; nothing chosen', async () => {
    const listed = await newPage({ currencies: ['USDT_TRON'] });
    for (const asset of ['USDC_TRON', 'TRX_TRON', 'NOPE_TRON']) {
      const r = await pay(`/pay/v1/invoices/${listed.invoice_id}/asset`, { body: { asset } });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('asset_not_offered');
    }
    const bad = await pay(`/pay/v1/invoices/${listed.invoice_id}/asset`, { body: { asset: 'usdt' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');

    const s = t.app.services;
    const page = await newPage();
    await setMerchantAsset(s.db, t.clock, 'test', s.catalog, merchantId, 'USDC_TRON', false);
    const mine = await pay(`/pay/v1/invoices/${page.invoice_id}/asset`, { body: { asset: 'USDC_TRON' } });
    expect([mine.status, mine.body.error.code]).toEqual([422, 'asset_disabled_by_merchant']);
    await setMerchantAsset(s.db, t.clock, 'test', s.catalog, merchantId, 'USDC_TRON', true);
    await setAssetFlags(s.db, t.clock, 'test', s.catalog, 'USDD_TRON', { payments: false });
    const operator = await pay(`/pay/v1/invoices/${page.invoice_id}/asset`, { body: { asset: 'USDD_TRON' } });
    expect([operator.status, operator.body.error.code]).toEqual([422, 'asset_payments_disabled']);
    await setAssetFlags(s.db, t.clock, 'test', s.catalog, 'USDD_TRON', { payments: true });

    // 900 s term: min(5 min, half the term) must be left to pay, so choose_by is 10 min in.
    t.clock.advance(600_001);
    const short = await pay(`/pay/v1/invoices/${page.invoice_id}/asset`, { body: { asset: 'USDT_TRON' } });
    expect([short.status, short.body.error.code]).toEqual([409, 'invoice_expired']);
    expect(short.body.error.message).toContain('Too little time');
    t.clock.advance(299_999);
    const late = await pay(`/pay/v1/invoices/${page.invoice_id}/asset`, { body: { asset: 'USDT_TRON' } });
    expect([late.status, late.body.error.code]).toEqual([409, 'invoice_expired']);
    for (const id of [listed.invoice_id, page.invoice_id]) {
      expect((await pay(`/pay/v1/invoices/${id}`)).body.asset).toBeNull();
      expect(await events(id)).toEqual([]);
    }
    t.clock.advance(-900_000);
  });

  it('answers concurrent choices of one token with one 201, and opens one invoice', async () => {
    const page = await newPage();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        pay(`/pay/v1/invoices/${page.invoice_id}/asset`, { body: { asset: 'USDT_TRON' } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(await events(page.invoice_id)).toEqual([{ type: 'invoice.created' }]);
  });
});

describe('the email for the receipt', () => {
  it('is stored with the page language, a later one replacing it; refused when malformed or unknown', async () => {
    const page = await newPage();
    const path = `/pay/v1/invoices/${page.invoice_id}/email`;
    const r = await api(t.pay, path, {
      body: { email: 'ana@example.com' },
      headers: { 'accept-language': 'pt-PT,en;q=0.5' },
    });
    expect(r.status, r.text).toBe(204);
    const stored = () =>
      t.app.services.db
        .selectFrom('receipt_emails')
        .select(['email', 'language'])
        .where('invoice_id', '=', page.invoice_id)
        .execute();
    expect(await stored()).toEqual([{ email: 'ana@example.com', language: 'pt-BR' }]);
    expect((await api(t.pay, path, { body: { email: 'ana@example.org', language: 'tr' } })).status).toBe(204);
    expect(await stored()).toEqual([{ email: 'ana@example.org', language: 'tr' }]);
    const bad = await pay(path, { body: { email: 'not an address' } });
    expect([bad.status, bad.body.error.details[0].path]).toEqual([400, 'body.email']);
    const absent = await pay('/pay/v1/invoices/00000000-0000-7000-8000-000000000000/email', {
      body: { email: 'a@b.co' },
    });
    expect([absent.status, absent.body.error.code]).toEqual([404, 'invoice_not_found']);
    expect((await pay(`/pay/v1/invoices/${page.invoice_id}`)).body).not.toHaveProperty('email');
  });
});

describe('the page and its document', () => {
  it('serves its OpenAPI document without a key', async () => {
    const r = await api(t.pay, '/pay/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.paths).sort()).toEqual([
      '/pay/v1/invoices/{invoice_id}',
      '/pay/v1/invoices/{invoice_id}/asset',
      '/pay/v1/invoices/{invoice_id}/email',
      '/pay/v1/invoices/{invoice_id}/receipt',
      '/pay/v1/refunds/{refund_id}',
      '/pay/v1/refunds/{refund_id}/address',
    ]);
  });

  it('answers route_not_found for a path that is not an invoice id', async () => {
    const r = await api(t.pay, '/pay/not-an-id');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('route_not_found');
  });
});
