/** POST /v1/invoices and GET /v1/invoices/{id} over real HTTP: every rule of the spec's section. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAssetFlags, setMerchantAsset } from '../../src/assets/service.js';
import { writeTx } from '../../src/db/database.js';
import { setInvoiceFee, setServiceFee } from '../../src/fees/service.js';
import { changeMerchant, updateMerchantSettings } from '../../src/merchants/service.js';
import { updateMerchant } from '../../src/merchants/store.js';
import { eventsOf } from '../../src/webhooks/outbox.js';
import { api, isErrorBody } from '../helpers/http.js';
import { newInvoice, startInvoiceApp, VECTORS, type InvoiceTestApp } from '../invoices/fixture.js';

const INVOICE_KEYS = [
  'invoice_id',
  'order_id',
  'status',
  'asset',
  'network',
  'address',
  'amount_requested',
  'amount_expected',
  'amount_received',
  'amount_credited',
  'fees',
  'external_user_id',
  'return_url',
  'cancel_url',
  'checkout_url',
  'expires_at',
  'created_at',
  'deposits',
];

describe('invoices', () => {
  let t: InvoiceTestApp;
  let key: string;
  let merchantId: string;
  const create = (body: unknown, k = key) => api(t.url, '/v1/invoices', { key: k, body });
  const expectError = (r: { status: number; body: unknown }, status: number, code: string) => {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(isErrorBody(r.body)).toBe(true);
    expect((r.body as { error: { code: string } }).error.code).toBe(code);
  };

  beforeAll(async () => {
    t = await startInvoiceApp();
    const m = await t.merchant({
      name: 'Shop A',
      siteUrl: 'https://shop.example',
      returnUrl: 'https://pay.shop.example',
    });
    key = m.key;
    merchantId = m.merchant.merchant_id;
  });
  afterAll(() => t.close());

  it('creates an invoice (201) with every key, the amounts and the fee block, from the HD wallet', async () => {
    const body = newInvoice({ order_id: 'first-order', amount: '10.5', expires_in: 3600 });
    const r = await create(body);
    expect(r.status).toBe(201);
    const inv = r.body;
    expect(Object.keys(inv).sort()).toEqual([...INVOICE_KEYS].sort());
    expect(inv).toMatchObject({
      order_id: 'first-order',
      status: 'created',
      asset: 'USDT_TRON',
      network: 'tron',
      address: VECTORS[0],
      amount_requested: '10.5',
      amount_expected: '10.5',
      amount_received: '0',
      amount_credited: '0',
      fees: {
        service: { payer: 'merchant', percent: '0', amount: '0' },
        network: { payer: 'merchant', quote: null, quote_rate: null, actual: null, status: 'included' },
      },
      external_user_id: null,
      return_url: null,
      cancel_url: null,
      checkout_url: null,
      created_at: '2026-03-01T10:00:00.000Z',
      expires_at: '2026-03-01T11:00:00.000Z',
      deposits: [],
    });
    expect(inv.invoice_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/); // UUIDv7: time-ordered (src/db/ids.ts)
    const events = await eventsOf(t.app.services.db, merchantId);
    expect(events.map((e) => [e.type, e.subject_id])).toContainEqual(['invoice.created', inv.invoice_id]);
    expect(JSON.parse(events.find((e) => e.subject_id === inv.invoice_id)!.data)).toEqual(inv);

    // Rule 1: the same order_id, amount (in any spelling), asset and user → the same invoice, 200.
    const again = await create({ ...body, amount: '10.50', expires_in: 60 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(inv);
    const read = await api(t.url, `/v1/invoices/${inv.invoice_id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(inv);

    // The next invoice takes the next derivation index.
    expect((await create(newInvoice())).body.address).toBe(VECTORS[1]);
  });

  it('refuses amounts larger than the chain can move: int64 sun for TRX, uint256 for tokens', async () => {
    const huge = await create(newInvoice({ order_id: 'huge-token', amount: '9'.repeat(100) }));
    expectError(huge, 400, 'validation_failed');
    expect((huge.body as { error: { details: unknown } }).error.details).toEqual([
      { path: 'body.amount', message: expect.stringContaining('larger') },
    ]);
    // 9,223,372,036,854.775807 TRX is the int64 limit of sun; one sun more is refused.
    expect(
      (await create(newInvoice({ order_id: 'trx-max', asset: 'TRX_TRON', amount: '9223372036854.775807' }))).status,
    ).toBe(201);
    expectError(
      await create(newInvoice({ order_id: 'trx-over', asset: 'TRX_TRON', amount: '9223372036854.775808' })),
      400,
      'validation_failed',
    );
  });

  it('rule 2: the same order_id with another amount, asset or user is 409 order_id_conflict', async () => {
    const body = newInvoice({ external_user_id: 'u-1' });
    expect((await create(body)).status).toBe(201);
    expectError(await create({ ...body, amount: '11' }), 409, 'order_id_conflict');
    expectError(await create({ ...body, asset: 'USDC_TRON' }), 409, 'order_id_conflict');
    expectError(await create({ ...body, external_user_id: 'u-2' }), 409, 'order_id_conflict');
    const { external_user_id: _omit, ...withoutUser } = body;
    expectError(await create(withoutUser), 409, 'order_id_conflict');
  });

  it('refuses malformed bodies with 400 validation_failed naming each field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ amount: '1.1234567' }, 'body.amount'], // more decimals than USDT has
      [{ amount: '01' }, 'body.amount'],
      [{ amount: '1e3' }, 'body.amount'],
      [{ amount: '-1' }, 'body.amount'],
      [{ amount: '0' }, 'body.amount'],
      [{ amount: ' 1' }, 'body.amount'],
      [{ amount: '' }, 'body.amount'],
      [{ amount: 10 }, 'body.amount'],
      [{ amount: '1'.repeat(101) }, 'body.amount'],
      [{ expires_in: 59 }, 'body.expires_in'],
      [{ expires_in: 604801 }, 'body.expires_in'],
      [{ expires_in: 60.5 }, 'body.expires_in'],
      [{ order_id: 'has space' }, 'body.order_id'],
      [{ order_id: 'x'.repeat(201) }, 'body.order_id'],
      [{ order_id: '' }, 'body.order_id'],
      [{ asset: 'usdt_tron' }, 'body.asset'],
      [{ asset: 'USDT' }, 'body.asset'],
      [{ external_user_id: 'tab\tid' }, 'body.external_user_id'],
      [{ extra: 1 }, 'body.extra'],
    ];
    for (const [over, path] of cases) {
      const r = await create(newInvoice(over));
      expectError(r, 400, 'validation_failed');
      expect(
        r.body.error.details.map((d: { path: string }) => d.path),
        JSON.stringify(over),
      ).toContain(path);
    }
    // USDD has 18 decimals: what is too fine for USDT is fine there.
    expect(
      (await create(newInvoice({ asset: 'USDD_TRON', amount: '1.000000000000000001' }))).body.amount_requested,
    ).toBe('1.000000000000000001');
  });

  it('rule 9: a missing asset alone is 422 asset_required; with other problems it is listed in 400 validation_failed', async () => {
    const r = await create(newInvoice({ order_id: 'no-asset', asset: undefined }));
    expectError(r, 422, 'asset_required');
    const both = await create(newInvoice({ order_id: 'no-asset', asset: undefined, expires_in: 59, extra: 1 }));
    expectError(both, 400, 'validation_failed');
    expect(both.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'body.asset', message: 'is required' },
        { path: 'body.expires_in', message: expect.any(String) },
        { path: 'body.extra', message: 'is not allowed' },
      ]),
    );
    // A wrong asset (present but malformed) stays a validation failure, and nothing was created.
    expectError(await create(newInvoice({ order_id: 'no-asset', asset: 'usdt' })), 400, 'validation_failed');
    const created = await create(newInvoice({ order_id: 'no-asset' }));
    expect(created.status).toBe(201);
    // The OpenAPI document keeps asset required.
    const doc = (await api(t.url, '/v1/openapi.json')).body;
    expect(doc.paths['/v1/invoices'].post.requestBody.content['application/json'].schema.required).toContain('asset');
  });

  it('rules 4, 5: unknown asset is 422 asset_not_supported (before the amount format), below minimum is amount_below_minimum', async () => {
    expectError(await create(newInvoice({ asset: 'DOGE_TRON' })), 422, 'asset_not_supported');
    expectError(await create(newInvoice({ asset: 'DOGE_TRON', amount: '1.1234567890' })), 422, 'asset_not_supported');
    expectError(await create(newInvoice({ amount: '0.999999' })), 422, 'amount_below_minimum');
    expect((await create(newInvoice({ amount: '1' }))).status).toBe(201);
  });

  it('rule 3 with asset switches: operator off → asset_payments_disabled, merchant off → asset_disabled_by_merchant; repeats still return the invoice', async () => {
    const { db, clock, catalog } = t.app.services;
    const before = newInvoice({ asset: 'TRX_TRON' });
    const made = await create(before);
    expect(made.status).toBe(201);

    await setAssetFlags(db, clock, 'test', catalog, 'TRX_TRON', { payments: false });
    expectError(await create(newInvoice({ asset: 'TRX_TRON' })), 422, 'asset_payments_disabled');
    const replayed = await create(before);
    expect(replayed.status).toBe(200);
    expect(replayed.body.invoice_id).toBe(made.body.invoice_id);
    await setAssetFlags(db, clock, 'test', catalog, 'TRX_TRON', { payments: true });

    await setMerchantAsset(db, clock, 'test', catalog, merchantId, 'TRX_TRON', false);
    expectError(await create(newInvoice({ asset: 'TRX_TRON' })), 422, 'asset_disabled_by_merchant');
    expect((await create(before)).status).toBe(200);
    await setMerchantAsset(db, clock, 'test', catalog, merchantId, 'TRX_TRON', true);
    expect((await create(newInvoice({ asset: 'TRX_TRON' }))).status).toBe(201);
  });

  it('rules 3, 7: a merchant not approved (pending or rejected) gets 403 merchant_not_approved, but replays and reads work', async () => {
    const { db, clock } = t.app.services;
    const pending = await t.merchant({ name: 'Pending', approve: false });
    expectError(await create(newInvoice(), pending.key), 403, 'merchant_not_approved');

    const m = await t.merchant({ name: 'Later rejected' });
    const body = newInvoice();
    const made = await create(body, m.key);
    expect(made.status).toBe(201);
    await changeMerchant(db, clock, 'test', m.merchant.merchant_id, 'reject');
    expectError(await create(newInvoice(), m.key), 403, 'merchant_not_approved');
    const replay = await create(body, m.key);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(made.body);
    const read = await api(t.url, `/v1/invoices/${made.body.invoice_id}`, { key: m.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(made.body);
  });

  it('rules 3, 8: the legacy "customer pays the network fee" setting is 503 network_fee_quote_unavailable, replays still work', async () => {
    const legacy = await t.merchant({ name: 'Legacy', legacyNetworkFeePayer: 'customer' });
    expectError(await create(newInvoice(), legacy.key), 503, 'network_fee_quote_unavailable');
    const count = async () =>
      Number(
        (
          await t.app.services.db
            .selectFrom('invoices')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('merchant_id', '=', legacy.merchant.merchant_id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count()).toBe(0);

    const m = await t.merchant({ name: 'Becomes legacy' });
    const body = newInvoice();
    const made = await create(body, m.key);
    await writeTx(t.app.services.db, (trx) =>
      updateMerchant(trx, m.merchant.merchant_id, { legacy_network_fee_payer: 'customer' }),
    );
    expect((await create(body, m.key)).body).toEqual(made.body);
    expectError(await create(newInvoice(), m.key), 503, 'network_fee_quote_unavailable');
  });

  it('rule 6: return_url / cancel_url must match the same kind of address or the site, t.me needs the same bot', async () => {
    // Shop A: site https://shop.example, return https://pay.shop.example, no cancel address.
    const ok = [
      { return_url: 'https://pay.shop.example/thanks?o=1' },
      { return_url: 'https://shop.example/back' },
      { cancel_url: 'https://shop.example/cancelled' },
    ];
    for (const urls of ok) {
      const r = await create(newInvoice(urls));
      expect(r.status, JSON.stringify(urls)).toBe(201);
      expect(r.body.return_url).toBe((urls as { return_url?: string }).return_url ?? null);
      expect(r.body.cancel_url).toBe((urls as { cancel_url?: string }).cancel_url ?? null);
    }
    const bad = [
      { cancel_url: 'https://pay.shop.example/x' }, // a return address does not allow cancel URLs
      { return_url: 'http://shop.example/back' }, // scheme is part of the origin
      { return_url: 'https://shop.example:8443/back' },
      { return_url: 'https://evil.example/shop.example' },
      { return_url: 'https://shop.example.evil.example/' },
      { return_url: 'https://shop.example@evil.example/' },
      { return_url: 'https://shop.example@shop.example/' },
      { return_url: 'javascript:alert(1)' },
      { return_url: 'not a url' },
    ];
    for (const urls of bad) expectError(await create(newInvoice(urls)), 422, 'redirect_url_not_allowed');

    const none = await t.merchant({ name: 'No URLs' });
    expectError(
      await create(newInvoice({ return_url: 'https://anything.example/' }), none.key),
      422,
      'redirect_url_not_allowed',
    );
    expect((await create(newInvoice(), none.key)).status).toBe(201);

    const bot = await t.merchant({ name: 'Bot', returnUrl: 'https://t.me/shop_bot' });
    expect((await create(newInvoice({ return_url: 'https://t.me/shop_bot?start=paid' }), bot.key)).status).toBe(201);
    expectError(
      await create(newInvoice({ return_url: 'https://t.me/other_bot' }), bot.key),
      422,
      'redirect_url_not_allowed',
    );
    expectError(await create(newInvoice({ return_url: 'https://t.me/' }), bot.key), 422, 'redirect_url_not_allowed');
    await updateMerchantSettings(t.app.services.db, t.app.services.clock, 'test', bot.merchant.merchant_id, {
      siteUrl: 'https://telegram.me/shop_channel',
    });
    expect((await create(newInvoice({ return_url: 'https://telegram.me/shop_channel/12' }), bot.key)).status).toBe(201);
    expectError(
      await create(newInvoice({ return_url: 'https://telegram.me/other' }), bot.key),
      422,
      'redirect_url_not_allowed',
    );
  });

  it('service fee and fixed receiving amount: rounded up, customer payer raises amount_expected, invoices keep their fee', async () => {
    const { db, clock, catalog } = t.app.services;
    const m = await t.merchant({ name: 'Fees' });
    const mid = m.merchant.merchant_id;
    await setServiceFee(db, clock, 'test', mid, { percent: '1.5', payer: 'customer' });
    const r1 = await create(newInvoice({ amount: '10.000001' }), m.key);
    // 1.5% of 10.000001 = 0.150000015 → rounded up to 0.150001
    expect(r1.body.fees.service).toEqual({ payer: 'customer', percent: '1.5', amount: '0.150001' });
    expect(r1.body.amount_expected).toBe('10.150002');

    await setInvoiceFee(db, clock, 'test', catalog, { asset: 'USDC_TRON', amount: '0.3' });
    const r2 = await create(newInvoice({ asset: 'USDC_TRON', amount: '100' }), m.key);
    expect(r2.body.fees.service).toEqual({ payer: 'customer', percent: '1.5', amount: '1.8' });
    expect(r2.body.amount_expected).toBe('101.8');

    // A rate scheduled for later applies from its moment, not before; old invoices keep theirs.
    const later = new Date(clock.now().getTime() + 3600_000).toISOString();
    await setServiceFee(db, clock, 'test', mid, { percent: '2', payer: 'merchant', validFrom: later });
    expect((await create(newInvoice({ amount: '100' }), m.key)).body.fees.service.percent).toBe('1.5');
    t.clock.advance(3600_000);
    const r3 = await create(newInvoice({ asset: 'USDC_TRON', amount: '100' }), m.key);
    expect(r3.body.fees.service).toEqual({ payer: 'merchant', percent: '2', amount: '2.3' });
    expect(r3.body.amount_expected).toBe('100');
    expect((await api(t.url, `/v1/invoices/${r1.body.invoice_id}`, { key: m.key })).body).toEqual(r1.body);
    expect((await api(t.url, `/v1/invoices/${r2.body.invoice_id}`, { key: m.key })).body).toEqual(r2.body);
    // A merchant-paid fee that eats the whole amount is refused rather than credited as nothing.
    await setInvoiceFee(db, clock, 'test', catalog, { asset: 'USDC_TRON', amount: '1' });
    expectError(await create(newInvoice({ asset: 'USDC_TRON', amount: '1' }), m.key), 422, 'amount_below_minimum');
  });

  it('GET: invoice_not_found for absent ids and for another merchant’s invoice; 400 for a non-UUID', async () => {
    const a = await create(newInvoice());
    const b = await t.merchant({ name: 'Shop B' });
    const r = await api(t.url, `/v1/invoices/${a.body.invoice_id}`, { key: b.key });
    expectError(r, 404, 'invoice_not_found');
    const absent = await api(t.url, '/v1/invoices/2b0c2e9a-7a9a-4c1e-9d7f-3f1b2a4c5d6e', { key });
    expectError(absent, 404, 'invoice_not_found');
    expect(r.body.error.message).toBe(absent.body.error.message);
    expectError(await api(t.url, '/v1/invoices/not-a-uuid', { key }), 400, 'validation_failed');
    // B replaying A's order_id creates B's own invoice: order ids are per merchant.
    const bSame = await create({ ...newInvoice(), order_id: a.body.order_id }, b.key);
    expect(bSame.status).toBe(201);
    expect(bSame.body.invoice_id).not.toBe(a.body.invoice_id);
  });

  it('is idempotent under concurrency: 20 identical creates → one 201, nineteen 200, one invoice, one address row', async () => {
    const { db } = t.app.services;
    const indexBefore = (await db.selectFrom('wallet').select('next_index').executeTakeFirstOrThrow()).next_index;
    const body = newInvoice({ order_id: 'concurrent-1' });
    const results = await Promise.all(Array.from({ length: 20 }, () => create(body)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(results.map((r) => r.body.invoice_id)).size).toBe(1);
    const rows = await db
      .selectFrom('invoices')
      .select('id')
      .where('order_id', '=', 'concurrent-1')
      .where('merchant_id', '=', merchantId)
      .execute();
    expect(rows).toHaveLength(1);
    // One address: one deposit_addresses row, the invoice's. Creations reserve their index before
    // their transaction (ADR 0072, src/addresses/allocator.ts), so a request that passed the replay
    // lookup before the winner committed may have taken an index too: that index stays unused (no
    // address row, never shown, never watched). The counter may thus advance by more than one.
    const addresses = await db
      .selectFrom('deposit_addresses')
      .select(['address', 'derivation_index'])
      .where('merchant_id', '=', merchantId)
      .where('derivation_index', '>=', indexBefore)
      .execute();
    expect(addresses).toHaveLength(1);
    expect(addresses[0]!.address).toBe(results[0]!.body.address);
    const indexAfter = (await db.selectFrom('wallet').select('next_index').executeTakeFirstOrThrow()).next_index;
    expect(indexAfter - indexBefore).toBeGreaterThanOrEqual(1);
    expect(indexAfter - indexBefore).toBeLessThanOrEqual(20);
  });

  it('documents the routes in /v1/openapi.json from the same schemas, with every Invoice key required', async () => {
    const doc = (await api(t.url, '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/invoices', '/v1/invoices/{id}', '/v1/addresses']),
    );
    const post = doc.paths['/v1/invoices'].post;
    expect(Object.keys(post.responses).sort()).toEqual(['200', '201', '400', '401', '403', '409', '422', '429', '503']);
    const invoice = post.responses['201'].content['application/json'].schema;
    expect([...invoice.required].sort()).toEqual([...INVOICE_KEYS].sort());
    expect(invoice.additionalProperties).toBe(false);
    const body = post.requestBody.content['application/json'].schema;
    expect([...body.required].sort()).toEqual(['amount', 'asset', 'expires_in', 'order_id']);
    expect(Object.keys(doc.paths['/v1/invoices/{id}'].get.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
    ]);
    expect(Object.keys(doc.paths['/v1/addresses'].post.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '409',
      '429',
      '503',
    ]);
  });

  it('per_user merchants: external_user_id is required (409 address_mode_mismatch) and invoices use the permanent address', async () => {
    const m = await t.merchant({ name: 'Per user', addressMode: 'per_user' });
    expectError(await create(newInvoice(), m.key), 409, 'address_mode_mismatch');
    const perm = await api(t.url, '/v1/addresses', {
      key: m.key,
      body: { external_user_id: 'user-42', network: 'tron' },
    });
    expect(perm.status).toBe(200);
    const i1 = await create(newInvoice({ external_user_id: 'user-42' }), m.key);
    const i2 = await create(newInvoice({ external_user_id: 'user-42', asset: 'TRX_TRON' }), m.key);
    const other = await create(newInvoice({ external_user_id: 'user-43' }), m.key);
    expect(i1.body.address).toBe(perm.body.address);
    expect(i2.body.address).toBe(perm.body.address);
    expect(other.body.address).not.toBe(perm.body.address);
    expect(i1.body.external_user_id).toBe('user-42');
  });
});
