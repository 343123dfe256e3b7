/**
 * The owner's switches take effect on /v1 through the merchants' and assets' own service
 * functions, each with an audit entry; and the lists page, filter and refuse bad queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/audit/store.js';
import { ManualClock } from '../../src/clock.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { changeMerchant, showMerchant } from '../../src/merchants/service.js';
import { api } from '../helpers/http.js';
import { startCabinetApp, type CabinetTestApp } from './helpers.js';

let t: CabinetTestApp;
let clock: ManualClock;

beforeAll(async () => {
  clock = new ManualClock(new Date('2026-05-01T10:00:00.000Z'));
  t = await startCabinetApp({ clock, workers: false });
});
afterAll(() => t.close());

const invoice = (key: string, order: string, asset = 'USDT_TRON') =>
  api(t.url, '/v1/invoices', { key, body: { order_id: order, asset, amount: '10', expires_in: 600 } });

async function ownShop(email: string, input: Parameters<CabinetTestApp['merchant']>[0] = {}) {
  const { merchant, key } = await t.merchant({ name: 'Shop', siteUrl: 'https://shop.example', ...input });
  const owner = await t.owner(email, [merchant.merchant_id]);
  return { id: merchant.merchant_id, key, token: await t.signIn(owner.email, owner.password) };
}

describe("the owner's switches", () => {
  it('disabling the merchant makes its keys answer 403 merchant_disabled; enabling lets them in again', async () => {
    const shop = await ownShop('switch@shop.example');
    const off = await t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token, {
      method: 'PATCH',
      body: { enabled: false },
    });
    expect(off.status).toBe(200);
    expect(off.body.enabled).toBe(false);
    const refused = await invoice(shop.key, 'o-1');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('merchant_disabled');
    await t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token, { method: 'PATCH', body: { enabled: true } });
    expect((await invoice(shop.key, 'o-1')).status).toBe(201);
    const audit = await listAudit(t.app.services.db, 'merchant', shop.id);
    expect(audit.filter((e) => e.actor === 'owner:switch@shop.example').map((e) => e.action)).toEqual([
      'merchant.owner_disable',
      'merchant.owner_enable',
    ]);
  });

  it("cannot undo the operator's stop: two switches, the merchant works only when neither is off", async () => {
    const shop = await ownShop('stop@shop.example');
    const { db } = t.app.services;
    const patch = (enabled: boolean) =>
      t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token, { method: 'PATCH', body: { enabled } });
    const refusedWith403 = async (order: string) => {
      const r = await invoice(shop.key, order);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('merchant_disabled');
    };

    await changeMerchant(db, clock, 'cli:operator', shop.id, 'disable');
    const undo = await patch(true);
    expect(undo.status).toBe(200);
    expect(undo.body).toMatchObject({ enabled: false, disabled_by: ['operator'] });
    await refusedWith403('s-1');
    expect(await showMerchant(db, shop.id)).toMatchObject({ enabled: false, disabled_by: ['operator'] });

    // The owner's own switch moves while the operator's stays off: both show, then the operator's alone.
    expect((await patch(false)).body).toMatchObject({ enabled: false, disabled_by: ['operator', 'owner'] });
    const account = await t.call('/cabinet/v1/account', shop.token);
    expect(account.body.merchants[0]).toMatchObject({ enabled: false, disabled_by: ['operator', 'owner'] });
    expect((await patch(true)).body).toMatchObject({ enabled: false, disabled_by: ['operator'] });
    await refusedWith403('s-2');

    // The operator's enable does not undo the owner's stop either.
    await patch(false);
    await changeMerchant(db, clock, 'cli:operator', shop.id, 'enable');
    expect((await t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token)).body).toMatchObject({
      enabled: false,
      disabled_by: ['owner'],
    });
    await refusedWith403('s-3');
    expect((await patch(true)).body).toMatchObject({ enabled: true, disabled_by: [] });
    expect((await invoice(shop.key, 's-4')).status).toBe(201);

    const audit = await listAudit(db, 'merchant', shop.id);
    expect(audit.filter((e) => e.action !== 'merchant.create').map((e) => [e.actor, e.action])).toEqual([
      ['test', 'merchant.approve'],
      ['cli:operator', 'merchant.disable'],
      ['owner:stop@shop.example', 'merchant.owner_enable'],
      ['owner:stop@shop.example', 'merchant.owner_disable'],
      ['owner:stop@shop.example', 'merchant.owner_enable'],
      ['owner:stop@shop.example', 'merchant.owner_disable'],
      ['cli:operator', 'merchant.enable'],
      ['owner:stop@shop.example', 'merchant.owner_enable'],
    ]);
  });

  it('turning an asset off refuses invoices in it with 422 asset_disabled_by_merchant', async () => {
    const shop = await ownShop('assets@shop.example');
    const r = await t.call(`/cabinet/v1/merchants/${shop.id}/assets/USDT_TRON`, shop.token, {
      method: 'PUT',
      body: { payments: false },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      asset: 'USDT_TRON',
      name: expect.any(String),
      payments: false,
      offered: true,
      usd_pegged: true,
    });
    const refused = await invoice(shop.key, 'o-2');
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('asset_disabled_by_merchant');
    const view = await t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token);
    expect(view.body.assets.find((a: { asset: string }) => a.asset === 'USDT_TRON').payments).toBe(false);
    const audit = await listAudit(t.app.services.db, 'merchant', shop.id);
    expect(audit.at(-1)).toMatchObject({ actor: 'owner:assets@shop.example', action: 'merchant.asset' });

    const unknown = await t.call(`/cabinet/v1/merchants/${shop.id}/assets/FOO_TRON`, shop.token, {
      method: 'PUT',
      body: { payments: true },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('asset_not_supported');
    const malformed = await t.call(`/cabinet/v1/merchants/${shop.id}/assets/usdt`, shop.token, {
      method: 'PUT',
      body: { payments: 'no' },
    });
    expect(malformed.status).toBe(400);
    // Path parameters are checked first, as on /v1.
    expect(malformed.body.error.details.map((d: { path: string }) => d.path)).toEqual(['params.asset']);
  });

  it('network_fee_payer "merchant" clears the legacy setting; "customer" is 422 and writes nothing', async () => {
    const shop = await ownShop('legacy@shop.example', { legacyNetworkFeePayer: 'customer' });
    expect((await invoice(shop.key, 'o-3')).body.error.code).toBe('network_fee_quote_unavailable');
    const view = await t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token);
    expect(view.body.settings.network_fee_payer).toBe('customer');
    const before = await listAudit(t.app.services.db, 'merchant', shop.id);

    const refused = await t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token, {
      method: 'PATCH',
      body: { enabled: false, network_fee_payer: 'customer' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('network_fee_payer_not_supported');
    const after = await t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token);
    expect(after.body).toEqual(view.body);
    expect(await listAudit(t.app.services.db, 'merchant', shop.id)).toEqual(before);

    const cleared = await t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token, {
      method: 'PATCH',
      body: { network_fee_payer: 'merchant' },
    });
    expect(cleared.body.settings.network_fee_payer).toBe('merchant');
    expect((await invoice(shop.key, 'o-3')).status).toBe(201);

    const empty = await t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token, { method: 'PATCH', body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('validation_failed');
  });

  it('shows balances per asset', async () => {
    const shop = await ownShop('money@shop.example');
    const { db, catalog } = t.app.services;
    await creditMerchant(db, clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', amount: '12.5', memo: 'test' });
    const r = await t.call(`/cabinet/v1/merchants/${shop.id}/balances`, shop.token);
    expect(r.body).toEqual({
      merchant_id: shop.id,
      balances: [{ asset: 'USDT_TRON', available: '12.5', reserved: '0', total: '12.5' }],
    });
  });
});

describe('lists', () => {
  it('page newest first with an opaque cursor, filter by status and period, and refuse bad queries', async () => {
    const shop = await ownShop('lists@shop.example');
    const times: string[] = [];
    for (const order of ['l-1', 'l-2', 'l-3']) {
      times.push(clock.now().toISOString());
      expect((await invoice(shop.key, order)).status).toBe(201);
      clock.advance(60_000);
    }
    const base = `/cabinet/v1/merchants/${shop.id}/invoices`;
    const first = await t.call(`${base}?limit=2`, shop.token);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((i: { order_id: string }) => i.order_id)).toEqual(['l-3', 'l-2']);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await t.call(`${base}?limit=2&cursor=${first.body.next_cursor}`, shop.token);
    expect(second.body).toEqual({ data: [expect.objectContaining({ order_id: 'l-1' })], next_cursor: null });

    const period = await t.call(`${base}?from=${times[1]}&to=${times[2]}`, shop.token);
    expect(period.body.data.map((i: { order_id: string }) => i.order_id)).toEqual(['l-2']);
    // Another spelling of the same instant bounds the same way.
    const offset = encodeURIComponent(new Date(times[1] as string).toISOString().replace('.000Z', '+00:00'));
    expect((await t.call(`${base}?from=${offset}`, shop.token)).body.data).toHaveLength(2);
    expect((await t.call(`${base}?status=settled`, shop.token)).body.data).toEqual([]);
    expect((await t.call(`${base}?status=created`, shop.token)).body.data).toHaveLength(3);

    const bad = await t.call(`${base}?status=paid&limit=0&cursor=x&extra=1`, shop.token);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'query.extra',
      'query.limit',
      'query.status',
    ]);
    const cursor = await t.call(`${base}?cursor=bm90IG91cnM`, shop.token);
    expect(cursor.body.error.details).toEqual([
      { path: 'query.cursor', message: 'is not a cursor this server returned' },
    ]);
    const backwards = await t.call(`${base}?from=${times[2]}&to=${times[1]}`, shop.token);
    expect(backwards.status).toBe(422);
    expect(backwards.body.error.code).toBe('invalid_period');
    expect(backwards.body.error.details).toEqual([
      { path: 'query.to', message: expect.stringContaining('must be after from') },
    ]);
    // From = To holds no time: the same refusal, on the reports too.
    const empty = await t.call(`${base}?from=2026-05-01&to=2026-05-01`, shop.token);
    expect([empty.status, empty.body.error.code]).toEqual([422, 'invalid_period']);
    const report = await t.call(
      `/cabinet/v1/merchants/${shop.id}/reports/invoices?from=2026-05-01&to=2026-05-01`,
      shop.token,
    );
    expect([report.status, report.body.error.code, report.body.error.details[0].path]).toEqual([
      422,
      'invalid_period',
      'query.to',
    ]);
    // A date alone is midnight UTC, as on the reports: the day of these invoices holds all three.
    expect((await t.call(`${base}?from=2026-05-01&to=2026-05-02`, shop.token)).body.data).toHaveLength(3);
    expect((await t.call(`${base}?to=2026-05-01`, shop.token)).body.data).toHaveLength(0);
    const notTime = await t.call(`${base}?from=yesterday`, shop.token);
    expect(notTime.body.error.details[0].path).toBe('query.from');
  });
});
