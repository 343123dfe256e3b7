/**
 * The owner's side of page invoices over HTTP: the cabinet creates one (the same rules as the
 * console), and lists and shows page invoices with their price, description and awaiting_choice,
 * before and after the customer's choice, each answer checked against the cabinet's document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PASSWORD, startCabinetApp, type CabinetTestApp } from '../cabinet/helpers.js';
import { api } from '../helpers/http.js';
import { ResponseChecker } from '../helpers/openapi-check.js';
import { pageBody } from './fixture.js';

let t: CabinetTestApp;
let clock: ManualClock;
let token: string;
let merchantId: string;
let key: string;
let checker: ResponseChecker;

beforeAll(async () => {
  clock = new ManualClock('2026-03-01T10:00:00.000Z');
  t = await startCabinetApp({ clock, workers: false });
  const m = await t.merchant({ name: 'Studio', siteUrl: 'https://studio.example' });
  merchantId = m.merchant.merchant_id;
  key = m.key;
  const owner = await t.owner('owner@studio.example', [merchantId]);
  token = await t.signIn(owner.email, owner.password);
  checker = new ResponseChecker((await api(t.cabinet, '/cabinet/v1/openapi.json')).body);
});
afterAll(() => t?.close());

async function cabinet(path: string, body?: unknown) {
  const r = await t.call(path, token, body === undefined ? {} : { body });
  checker.check(body === undefined ? 'GET' : 'POST', path, r.status, r.body, 'application/json');
  return r;
}

describe('page invoices in the cabinet', () => {
  it('creates one (201, then 200), refusing as the console does', async () => {
    const body = pageBody({ price: '120', description: 'Brand book' });
    const r = await cabinet(`/cabinet/v1/merchants/${merchantId}/invoices`, body);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ price: '120', description: 'Brand book', asset: null, status: 'created' });
    expect(r.body.checkout_url).toBe(`${t.app.payUrl}/pay/${r.body.invoice_id}`);
    expect((await cabinet(`/cabinet/v1/merchants/${merchantId}/invoices`, body)).status).toBe(200);
    const refused = await cabinet(
      `/cabinet/v1/merchants/${merchantId}/invoices`,
      pageBody({ currencies: ['TRX_TRON'] }),
    );
    expect([refused.status, refused.body.error.code]).toEqual([422, 'asset_not_offered']);
    const bidi = await cabinet(
      `/cabinet/v1/merchants/${merchantId}/invoices`,
      pageBody({ description: 'Logo \u202Egnp.exe' }),
    );
    expect([bidi.status, bidi.body.error.details[0].path]).toEqual([400, 'body.description']);
    const urls = await cabinet(
      `/cabinet/v1/merchants/${merchantId}/invoices`,
      pageBody({ return_url: 'https://evil.example/r' }),
    );
    expect([urls.status, urls.body.error.code]).toEqual([422, 'redirect_url_not_allowed']);
    const other = await cabinet(`/cabinet/v1/merchants/00000000-0000-4000-8000-000000000000/invoices`, pageBody());
    expect([other.status, other.body.error.code]).toEqual([404, 'merchant_not_found']);
  });

  it('lists page invoices awaiting the choice beside /v1 invoices, newest first, and shows one', async () => {
    const m = await t.merchant({ name: 'Second' });
    const id = m.merchant.merchant_id;
    const owner = await t.owner('second@studio.example', [id]);
    token = await t.signIn(owner.email, owner.password);
    const v1 = await api(t.url, '/v1/invoices', {
      key: m.key,
      body: { order_id: 'v1-a', asset: 'USDT_TRON', amount: '5', expires_in: 900 },
    });
    clock.advance(1000);
    const page = await cabinet(
      `/cabinet/v1/merchants/${id}/invoices`,
      pageBody({ description: 'Poster', expires_in: 60 }),
    );
    clock.advance(1000);

    const list = await cabinet(`/cabinet/v1/merchants/${id}/invoices`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((i: { invoice_id: string }) => i.invoice_id)).toEqual([
      page.body.invoice_id,
      v1.body.invoice_id,
    ]);
    expect(list.body.data[0]).toMatchObject({
      awaiting_choice: true,
      status: 'created',
      price: '25',
      price_currency: 'USD',
      description: 'Poster',
      asset: null,
      address: null,
      amount_expected: null,
      fees: null,
      checkout_url: page.body.checkout_url,
    });
    expect(list.body.data[1]).toMatchObject({
      awaiting_choice: false,
      price: null,
      description: null,
      asset: 'USDT_TRON',
    });

    const paged = await cabinet(`/cabinet/v1/merchants/${id}/invoices?limit=1`);
    expect(paged.body.data).toHaveLength(1);
    const next = await cabinet(`/cabinet/v1/merchants/${id}/invoices?limit=1&cursor=${paged.body.next_cursor}`);
    expect(next.body.data[0].invoice_id).toBe(v1.body.invoice_id);

    const one = await cabinet(`/cabinet/v1/merchants/${id}/invoices/${page.body.invoice_id}`);
    expect(one.body).toEqual(list.body.data[0]);
    expect(one.body.status_history).toEqual([{ status: 'created', at: page.body.created_at, derived: true }]);

    // The search finds an awaiting page invoice by its order id or id; an asset filter leaves it out.
    const ids = async (query: string) =>
      (await cabinet(`/cabinet/v1/merchants/${id}/invoices?${query}`)).body.data.map(
        (i: { invoice_id: string }) => i.invoice_id,
      );
    expect(await ids(`q=${page.body.order_id}`)).toEqual([page.body.invoice_id]);
    expect(await ids(`q=${page.body.invoice_id}`)).toEqual([page.body.invoice_id]);
    expect(await ids('q=v1-a')).toEqual([v1.body.invoice_id]);
    expect(await ids('asset=USDT_TRON')).toEqual([v1.body.invoice_id]);

    clock.advance(60_000);
    const expired = await cabinet(`/cabinet/v1/merchants/${id}/invoices?status=expired`);
    expect(expired.body.data.map((i: { invoice_id: string }) => i.invoice_id)).toEqual([page.body.invoice_id]);
    expect((await cabinet(`/cabinet/v1/merchants/${id}/invoices?status=created`)).body.data).toHaveLength(1);
    // Another account's merchant: as absent.
    const mine = await cabinet(`/cabinet/v1/merchants/${merchantId}/invoices/${page.body.invoice_id}`);
    expect(mine.status).toBe(404);
  });

  it('shows a chosen page invoice as its invoice with the price and description', async () => {
    // Signed in as the first merchant's owner again.
    token = await t.signIn('owner@studio.example', PASSWORD);
    const page = await cabinet(`/cabinet/v1/merchants/${merchantId}/invoices`, pageBody({ description: 'Mug' }));
    const chosen = await api(t.app.payUrl as string, `/pay/v1/invoices/${page.body.invoice_id}/asset`, {
      body: { asset: 'USDT_TRON' },
    });
    expect(chosen.status, chosen.text).toBe(201);
    const one = await cabinet(`/cabinet/v1/merchants/${merchantId}/invoices/${page.body.invoice_id}`);
    expect(one.body).toMatchObject({
      awaiting_choice: false,
      asset: 'USDT_TRON',
      address: chosen.body.address,
      price: '25',
      description: 'Mug',
      checkout_url: page.body.checkout_url,
    });
    const v1 = await api(t.url, `/v1/invoices/${page.body.invoice_id}`, { key });
    const {
      price: _p,
      price_currency: _c,
      description: _d,
      awaiting_choice: _a,
      status_history: history,
      exceptions,
      foreign_deposits: foreignDeposits,
      ...asV1
    } = one.body;
    expect(asV1).toEqual(v1.body);
    expect(history).toEqual([{ status: 'created', at: v1.body.created_at, derived: false }]);
    expect(exceptions).toEqual([]);
    expect(foreignDeposits).toEqual([]);
  });
});
