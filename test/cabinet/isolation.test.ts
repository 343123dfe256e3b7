/**
 * Isolation is the cabinet's contract: account B gets, for account A's merchant, invoice, payout,
 * key and delivery, exactly the answers an absent id gets, and no list ever shows A's rows. The
 * routes come from the cabinet's served OpenAPI document, so a route added later is covered
 * without being listed here. Real HTTP on both listeners, real SQLite, the /v1 API making the
 * records.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { revokeOwnerMerchant } from '../../src/owners/service.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { api } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { startCabinetApp, type CabinetTestApp } from './helpers.js';

let t: CabinetTestApp;
const PAYOUT_TO = newAddress();

interface Records {
  merchantId: string;
  key: string;
  keyId: string;
  invoiceId: string;
  payoutId: string;
  deliveryId: string;
  deliveryIds: string[];
  refundId: string;
  exceptionId: string;
  accountId: string;
  token: string;
}

/** A merchant of its own account, with an invoice, a payout, a key and a webhook delivery. */
async function account(email: string, name: string): Promise<Records> {
  const { merchant, key } = await t.merchant({ name, siteUrl: 'https://shop.example' });
  const id = merchant.merchant_id;
  const { db, catalog } = t.app.services;
  await setEndpoint(db, t.clock, 'test', id, { url: 'http://127.0.0.1:9/hook', allowPrivate: true });
  await creditMerchant(db, t.clock, 'test', catalog, id, { asset: 'USDT_TRON', amount: '100', memo: 'test' });
  await addToWhitelist(db, t.clock, 'test', catalog, id, { asset: 'USDT_TRON', address: PAYOUT_TO, delay: '0' });
  const invoice = await api(t.url, '/v1/invoices', {
    key,
    body: { order_id: `${name}-1`, asset: 'USDT_TRON', amount: '10', expires_in: 600 },
  });
  expect(invoice.status).toBe(201);
  const payout = await api(t.url, '/v1/payouts', {
    key,
    body: { reference: `${name}-p1`, asset: 'USDT_TRON', to_address: PAYOUT_TO, amount: '5' },
  });
  expect(payout.status).toBe(202);
  // invoice.created and payout.pending_review.
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('merchant_id', '=', id)
    .orderBy('merchant_seq')
    .execute();
  expect(deliveries).toHaveLength(2);
  // A refund of the invoice, as its row (no credit to refund here; its routes are what is tested).
  const refundId = randomUUID();
  const at = t.clock.now().toISOString();
  await db
    .insertInto('refunds')
    .values({
      ...{ id: refundId, merchant_id: id, invoice_id: invoice.body.invoice_id, asset: 'USDT_TRON', decimals: 6 },
      ...{ amount: '1', fee_amount: '0', fee_schedule_id: null, reason: null, exception_id: null },
      ...{ status: 'canceled', claim_url: `http://pay/pay/refund/${refundId}`, address: null, payout_id: null },
      ...{ created_by: 'test', created_at: at, expires_at: at, updated_at: at },
    })
    .execute();
  // An exception of the merchant, as its row (unattributed: the invoice's view stays as /v1's).
  const exceptionId = randomUUID();
  await db
    .insertInto('exceptions')
    .values({
      ...{ id: exceptionId, kind: 'unattributed', merchant_id: id, invoice_id: null, payout_id: null },
      ...{ deposit_id: null, asset: 'USDT_TRON', amount: '1', decimals: 6, created_at: at, updated_at: at },
      ...{ resolved_at: null, resolved_by: null, resolution_note: null, refund_id: null },
    })
    .execute();
  const owner = await t.owner(email, [id]);
  const ownerRow = await db.selectFrom('owners').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return {
    refundId,
    exceptionId,
    accountId: ownerRow.id,
    merchantId: id,
    key,
    keyId: key.slice(3, 19),
    invoiceId: invoice.body.invoice_id,
    payoutId: payout.body.payout_id,
    deliveryId: deliveries[1]!.id,
    deliveryIds: deliveries.map((d) => d.id),
    token: await t.signIn(owner.email, owner.password),
  };
}

let a: Records;
let b: Records;

beforeAll(async () => {
  t = await startCabinetApp({ clock: new ManualClock(new Date()), workers: false });
  a = await account('a@shop.example', 'shop-a');
  b = await account('b@games.example', 'games-b');
});
afterAll(() => t.close());

/** The body with every id of `ids` written as ID: an absent id and another account's must read the same. */
const masked = (body: unknown, ...ids: string[]) =>
  ids.reduce((text, id) => text.split(id).join('ID'), JSON.stringify(body));

/** One operation of the served document with `{merchant_id}` in its path. */
interface MerchantOperation {
  method: string;
  path: string;
  /** Required query parameters by name. */
  query: string[];
  body?: unknown;
}

type Json = Record<string, any>;

/** The merchant routes as the cabinet serves its own document: a new route is covered unasked. */
async function merchantOperations(): Promise<MerchantOperation[]> {
  const doc = (await t.call('/cabinet/v1/openapi.json', null)).body as Json;
  const out: MerchantOperation[] = [];
  for (const [path, operations] of Object.entries<Json>(doc.paths)) {
    if (!path.includes('{merchant_id}')) continue;
    for (const [method, op] of Object.entries<Json>(operations)) {
      const query = (op.parameters ?? [])
        .filter((p: Json) => p.in === 'query' && p.required)
        .map((p: Json) => p.name as string);
      const schema = op.requestBody?.content?.['application/json']?.schema;
      out.push({ method: method.toUpperCase(), path, query, ...(schema ? { body: exampleOf(doc, schema) } : {}) });
    }
  }
  return out;
}

/** A valid value of a body schema: every property, the first of an enum, `false` for a switch. */
function exampleOf(doc: Json, schema: Json): unknown {
  if (schema.$ref) return exampleOf(doc, doc.components.schemas[String(schema.$ref).split('/').pop()!]);
  if (schema.enum) return schema.enum[0];
  if (schema.type === 'object')
    return Object.fromEntries(
      Object.entries<Json>(schema.properties ?? {}).map(([k, v]) => [
        k,
        // An email field takes an address (a member's invitation).
        k === 'email' ? 'member@example.test' : exampleOf(doc, v),
      ]),
    );
  if (schema.type === 'boolean') return false;
  if (Array.isArray(schema.examples)) return schema.examples[0];
  if (schema.type === 'integer') return schema.minimum ?? 1;
  if (schema.type === 'array') return [exampleOf(doc, schema.items)];
  // An asset code where its pattern asks for one; any other text field takes "1" (an order id, a price).
  if (schema.type === 'string') return String(schema.pattern ?? '').includes('_[A-Z0-9]') ? 'USDT_TRON' : '1';
  throw new Error(`no example for ${JSON.stringify(schema)}: add one to the isolation test`);
}

/** Required query parameters of the merchant routes (the reports' period). */
const QUERY: Record<string, string> = { from: '2020-01-01', to: '2100-01-01' };

/** The record ids under a merchant: A's record, an absent one, and the code both answer with. */
function recordIds(): Record<string, [theirs: string, absent: string, code: string]> {
  return {
    invoice_id: [a.invoiceId, randomUUID(), 'invoice_not_found'],
    payout_id: [a.payoutId, randomUUID(), 'payout_not_found'],
    key_id: [a.keyId, '0123456789abcdef', 'api_key_not_found'],
    refund_id: [a.refundId, randomUUID(), 'refund_not_found'],
    delivery_id: [a.deliveryId, `dlv_${'0'.repeat(24)}`, 'delivery_not_found'],
    exception_id: [a.exceptionId, randomUUID(), 'exception_not_found'],
    account_id: [a.accountId, randomUUID(), 'owner_not_found'],
  };
}

/** The request of `op` with these path parameters (asset: one the catalog has). */
function urlOf(op: MerchantOperation, params: Record<string, string>): string {
  const path = op.path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => {
    const value = name === 'asset' ? 'USDT_TRON' : params[name];
    if (value === undefined) throw new Error(`no value for {${name}} of ${op.path}: add it to the isolation test`);
    return value;
  });
  const query = op.query.map((name) => {
    if (!(name in QUERY)) throw new Error(`no value for ?${name} of ${op.path}: add it to the isolation test`);
    return `${name}=${QUERY[name]}`;
  });
  return query.length ? `${path}?${query.join('&')}` : path;
}

/** The record parameter of a path under a merchant (`{invoice_id}`…), if any. */
const recordParamOf = (path: string) => /\{([a-z_]+_id)\}/g.exec(path.replace('{merchant_id}', ''))?.[1];

describe("account B and account A's records", () => {
  it("A's merchant answers as an absent merchant on every route of the served document, reads and changes alike", async () => {
    const operations = await merchantOperations();
    // The document lists them all: reads, the owner's switches, records and reports.
    expect(operations.length).toBeGreaterThanOrEqual(17);
    expect(operations.some((op) => op.method !== 'GET')).toBe(true);
    const absent = randomUUID();
    const records = recordIds();
    const recordParams = Object.fromEntries(Object.entries(records).map(([name, [theirs]]) => [name, theirs]));
    for (const op of operations) {
      const what = `${op.method} ${op.path}`;
      const req = { method: op.method, ...(op.body ? { body: op.body } : {}) };
      const theirs = await t.call(urlOf(op, { ...recordParams, merchant_id: a.merchantId }), b.token, req);
      const none = await t.call(urlOf(op, { ...recordParams, merchant_id: absent }), b.token, req);
      expect(theirs.status, what).toBe(404);
      expect(theirs.body.error.code, what).toBe('merchant_not_found');
      expect(masked(theirs.body, a.merchantId), what).toBe(masked(none.body, absent));
    }
    // Nothing changed: A's merchant is enabled and receives USDT.
    const mine = await t.call(`/cabinet/v1/merchants/${a.merchantId}`, a.token);
    expect(mine.body.enabled).toBe(true);
    expect(mine.body.assets.find((x: { asset: string }) => x.asset === 'USDT_TRON').payments).toBe(true);
  });

  it("A's record under B's own merchant answers as an absent one on every record route of the document", async () => {
    const records = recordIds();
    const withRecords = (await merchantOperations()).filter((op) => recordParamOf(op.path));
    // Invoices, payouts, keys, deliveries, refunds, exceptions and members: each kind of record is covered.
    expect(new Set(withRecords.map((op) => recordParamOf(op.path)))).toEqual(new Set(Object.keys(records)));
    for (const op of withRecords) {
      const name = recordParamOf(op.path) as string;
      const [theirId, absentId, code] = records[name]!;
      const req = { method: op.method, ...(op.body ? { body: op.body } : {}) };
      const url = (id: string) => urlOf(op, { merchant_id: b.merchantId, [name]: id });
      const theirs = await t.call(url(theirId), b.token, req);
      const none = await t.call(url(absentId), b.token, req);
      expect(theirs.status, op.path).toBe(404);
      expect(theirs.body.error.code, op.path).toBe(code);
      expect(masked(theirs.body, theirId), op.path).toBe(masked(none.body, absentId));
      // An upper-case spelling of the id is the same record, and the same refusal.
      const upper = await t.call(url(theirId.toUpperCase()), b.token, req);
      expect(upper.body.error?.code, op.path).toBe(code);
    }
  });

  it("no list shows A's rows to B, and B's account names only B's merchant", async () => {
    const base = `/cabinet/v1/merchants/${b.merchantId}`;
    const ids = (r: { body: { data: Record<string, unknown>[] } }, field: string) => r.body.data.map((x) => x[field]);
    expect(ids(await t.call('/cabinet/v1/merchants', b.token), 'merchant_id')).toEqual([b.merchantId]);
    expect(ids(await t.call(`${base}/invoices`, b.token), 'invoice_id')).toEqual([b.invoiceId]);
    expect(ids(await t.call(`${base}/payouts`, b.token), 'payout_id')).toEqual([b.payoutId]);
    expect(ids(await t.call(`${base}/keys`, b.token), 'key_id')).toEqual([b.keyId]);
    expect(ids(await t.call(`${base}/deliveries`, b.token), 'delivery_id').sort()).toEqual([...b.deliveryIds].sort());
    expect(ids(await t.call(`${base}/deposits`, b.token), 'deposit_id')).toEqual([]);
    const account = await t.call('/cabinet/v1/account', b.token);
    expect(account.body.merchants.map((m: { merchant_id: string }) => m.merchant_id)).toEqual([b.merchantId]);
    const everything = JSON.stringify(
      await Promise.all(
        ['', '/invoices', '/payouts', '/keys', '/deliveries', '/balances'].map((x) => t.call(`${base}${x}`, b.token)),
      ),
    );
    for (const id of [a.merchantId, a.invoiceId, a.payoutId, a.keyId, a.deliveryId])
      expect(everything).not.toContain(id);
  });

  it('A sees its own records, invoices and payouts exactly as /v1 shows them, and never a key secret', async () => {
    const base = `/cabinet/v1/merchants/${a.merchantId}`;
    const v1Invoice = await api(t.url, `/v1/invoices/${a.invoiceId}`, { key: a.key });
    const invoice = await t.call(`${base}/invoices/${a.invoiceId}`, a.token);
    expect(invoice.status).toBe(200);
    // /v1's object plus the cabinet's own fields (those of a page invoice null for one made through /v1).
    const ownInvoice = {
      ...v1Invoice.body,
      status_history: [{ status: 'created', at: v1Invoice.body.created_at, derived: false }],
      price: null,
      price_currency: null,
      description: null,
      awaiting_choice: false,
    };
    // The view adds the invoice's exceptions and foreign deposits (none here); the list leaves them out.
    expect(invoice.body).toEqual({ ...ownInvoice, exceptions: [], foreign_deposits: [] });
    expect((await t.call(`${base}/invoices`, a.token)).body.data).toEqual([ownInvoice]);
    const v1Payout = await api(t.url, `/v1/payouts/${a.payoutId}`, { key: a.key });
    const ownPayout = { ...v1Payout.body, reject_reason: null, fail_reason: null, hold_reason: null };
    expect((await t.call(`${base}/payouts/${a.payoutId}`, a.token)).body).toEqual(ownPayout);
    expect((await t.call(`${base}/payouts`, a.token)).body.data).toEqual([ownPayout]);
    const keys = await t.call(`${base}/keys`, a.token);
    // The key was used by the /v1 requests above: its last use is shown, never its secret.
    expect(keys.body.data).toEqual([
      {
        key_id: a.keyId,
        label: null,
        status: 'active',
        created_at: expect.any(String),
        expires_at: null,
        revoked_at: null,
        last_used_at: expect.any(String),
      },
    ]);
    expect(keys.text).not.toContain(a.key.slice(20));
    const delivery = await t.call(`${base}/deliveries/${a.deliveryId}`, a.token);
    expect(delivery.body).toMatchObject({
      delivery_id: a.deliveryId,
      type: 'payout.pending_review',
      status: 'pending',
      attempts_log: [],
    });
  });

  it('the operator revoking access is seen on the next request', async () => {
    await revokeOwnerMerchant(t.app.services.db, t.clock, 'test', 'a@shop.example', a.merchantId);
    const r = await t.call(`/cabinet/v1/merchants/${a.merchantId}/invoices`, a.token);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('merchant_not_found');
    expect((await t.call('/cabinet/v1/merchants', a.token)).body.data).toEqual([]);
  });
});

describe("an owner's reports", () => {
  it("downloads the merchant's own ledger and invoices, never another merchant's rows", async () => {
    const ledger = await t.call(
      `/cabinet/v1/merchants/${b.merchantId}/reports/ledger?from=2020-01-01&to=2100-01-01&format=json`,
      b.token,
    );
    expect(ledger.status, ledger.text).toBe(200);
    expect(ledger.headers.get('content-disposition')).toContain(b.merchantId);
    expect(ledger.body.accounts.map((x: { merchant_id: string }) => x.merchant_id)).toEqual([b.merchantId]);
    expect(ledger.body.accounts[0]).toMatchObject({ asset: 'USDT_TRON', opening: '0', closing: '100' });
    const invoices = await t.call(
      `/cabinet/v1/merchants/${b.merchantId}/reports/invoices?from=2020-01-01&to=2100-01-01`,
      b.token,
    );
    expect(invoices.status).toBe(200);
    expect(invoices.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(invoices.text).toContain(b.invoiceId);
    expect(invoices.text).not.toContain(a.invoiceId);
    const bad = await t.call(`/cabinet/v1/merchants/${b.merchantId}/reports/invoices?from=x&to=2100-01-01`, b.token);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('query.from');
    const anonymous = await t.call(
      `/cabinet/v1/merchants/${b.merchantId}/reports/invoices?from=2020-01-01&to=2100-01-01`,
      null,
    );
    expect(anonymous.status).toBe(401);
  });
});
