/**
 * Every cabinet list as a spreadsheet: `?format=csv` answers every row the JSON list's filters
 * match, across as many pages as it takes (the export's page size is lowered to 2 here), with the
 * reports' conventions: a header row, RFC 4180 quoting, times in UTC, amounts as decimal text,
 * formula injection neutralised. Real HTTP on the cabinet listener.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditMerchant } from '../../src/ledger/operator.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { api } from '../helpers/http.js';
import { startCabinetApp, type CabinetTestApp } from './helpers.js';

let t: CabinetTestApp;
let shop: string;
let key: string;
let token: string;
const ORDERS = ['ord-a1', 'ord-a2', 'ord-a3', 'ord-a4', 'ord-a5', '=HYPERLINK("http://x.example")', 'ord-b1,"quoted"'];

/** RFC 4180 records (quoted fields with doubled quotes, CRLF between records). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** The CSV as objects keyed by its header. */
function records(text: string): Record<string, string>[] {
  const [head, ...rest] = parseCsv(text);
  return rest.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i]!])));
}

const csv = (path: string) => t.call(`/cabinet/v1/merchants/${shop}${path}`, token);

beforeAll(async () => {
  t = await startCabinetApp({ cabinet: { loginPerIp: 1000, loginPerAccount: 1000, exportPageSize: 2 } });
  const made = await t.merchant({ name: 'Export shop', siteUrl: 'https://export.example' });
  shop = made.merchant.merchant_id;
  key = made.key;
  const { db, catalog } = t.app.services;
  await setEndpoint(db, t.clock, 'test', shop, { url: 'http://127.0.0.1:9/hook', allowPrivate: true });
  await creditMerchant(db, t.clock, 'test', catalog, shop, { asset: 'USDT_TRON', amount: '100', memo: 'test' });
  for (const [i, order_id] of ORDERS.entries()) {
    const r = await api(t.url, '/v1/invoices', {
      key,
      body: { order_id, asset: i === 6 ? 'USDC_TRON' : 'USDT_TRON', amount: `1250.${i}5`, expires_in: 600 },
    });
    expect(r.status, r.text).toBe(201);
  }
  const owner = await t.owner('books@export.example', [shop]);
  token = await t.signIn(owner.email, owner.password);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('a list as CSV', () => {
  it('holds every row the filters match across pages, as the JSON list shows them, with download headers', async () => {
    const r = await csv('/invoices?format=csv&q=ord-a');
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="paygate-invoices-${shop}.csv"`);
    const rows = records(r.text);
    // Five rows at two a page: three pages read; newest first as the list.
    expect(rows.map((x) => x.order_id)).toEqual(['ord-a5', 'ord-a4', 'ord-a3', 'ord-a2', 'ord-a1']);
    const json = (await csv('/invoices?q=ord-a&limit=5')).body.data as { invoice_id: string; created_at: string }[];
    expect(rows.map((x) => x.invoice_id)).toEqual(json.map((i) => i.invoice_id));
    expect(rows[4]).toMatchObject({
      status: 'created',
      asset: 'USDT_TRON',
      amount_requested: '1250.05',
      created_at_utc: json[4]!.created_at.slice(0, 19).replace('T', ' '),
    });
    expect(r.text.startsWith('invoice_id,created_at_utc,order_id,status,')).toBe(true);
    expect(r.text.endsWith('\r\n')).toBe(true);

    const usdc = records((await csv('/invoices?format=csv&asset=USDC_TRON')).text);
    expect(usdc.map((x) => x.order_id)).toEqual(['ord-b1,"quoted"']);
    // Quoted as RFC 4180 says: the comma and the doubled quotes.
    expect((await csv('/invoices?format=csv&asset=USDC_TRON')).text).toContain('"ord-b1,""quoted"""');
  });

  it('neutralises a cell a spreadsheet would run as a formula, never a signed amount', async () => {
    const rows = records((await csv('/invoices?format=csv&status=created')).text);
    expect(rows).toHaveLength(ORDERS.length);
    expect(rows.map((x) => x.order_id)).toContain(`'=HYPERLINK("http://x.example")`);
    expect(rows.map((x) => x.order_id)).not.toContain(`=HYPERLINK("http://x.example")`);
  });

  it('refuses a bad filter with the JSON error before any CSV byte', async () => {
    const r = await csv('/invoices?format=csv&q=or');
    expect([r.status, r.body.error.code, r.body.error.details[0].path]).toEqual([400, 'validation_failed', 'query.q']);
    const period = await csv('/invoices?format=csv&from=2026-02-01&to=2026-01-01');
    expect([period.status, period.body.error.code]).toEqual([422, 'invalid_period']);
    expect((await csv('/invoices?format=xlsx')).status).toBe(400);
  });

  it('exists on every list: payouts, deposits, deliveries, keys, exceptions and refunds, each with its header', async () => {
    const heads: Record<string, string> = {
      payouts: 'payout_id,created_at_utc,updated_at_utc,reference,status,asset,amount,',
      deposits: 'deposit_id,block_time_utc,asset,amount,',
      deliveries: 'delivery_id,created_at_utc,updated_at_utc,event_id,type,',
      keys: 'key_id,label,status,created_at_utc,',
      exceptions: 'exception_id,created_at_utc,kind,asset,amount,',
      refunds: 'refund_id,created_at_utc,invoice_id,status,asset,amount,fee,',
    };
    for (const [list, head] of Object.entries(heads)) {
      const r = await csv(`/${list}?format=csv`);
      expect(r.status, `${list}: ${r.text}`).toBe(200);
      expect(r.headers.get('content-type'), list).toBe('text/csv; charset=utf-8');
      expect(r.text.startsWith(head), `${list}: ${r.text.slice(0, 120)}`).toBe(true);
    }
    // One invoice.created delivery per invoice, over four pages of two.
    const deliveries = records((await csv('/deliveries?format=csv')).text);
    expect(deliveries).toHaveLength(ORDERS.length);
    expect(new Set(deliveries.map((d) => d.type))).toEqual(new Set(['invoice.created']));
    expect(records((await csv('/keys?format=csv')).text)).toHaveLength(1);
  });

  it('is a read: a viewer downloads it too', async () => {
    const invited = await csv('/members');
    expect(invited.status).toBe(200);
    const r = await t.call(`/cabinet/v1/merchants/${shop}/members`, token, {
      body: { email: 'viewer@export.example', role: 'viewer' },
    });
    expect(r.status, r.text).toBe(201);
    const setup = await t.call('/cabinet/v1/account/setup', null, {
      body: { setup_token: r.body.setup_token, password: 'correct horse battery staple' },
    });
    expect(setup.status).toBe(200);
    const viewer = await t.signIn('viewer@export.example', 'correct horse battery staple');
    const rows = records((await t.call(`/cabinet/v1/merchants/${shop}/invoices?format=csv`, viewer)).text);
    expect(rows).toHaveLength(ORDERS.length);
  });
});
