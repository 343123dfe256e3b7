/**
 * What an owner finds in the cabinet beyond /v1's objects, against the real app, its chain
 * watcher and the devnet: search by order id, invoice id, address or transaction hash, the asset
 * filter, each deposit's sender, the invoice's status history with times, and the reason of a
 * rejected payout.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOwner } from '../../src/owners/service.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { rejectPayout } from '../../src/payouts/operator.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { api, type ApiResponse } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { startChainApp, type ChainTestApp } from '../watcher/fixture.js';
import { PASSWORD } from './helpers.js';

let t: ChainTestApp;
let shop: { id: string; key: string };
let token: string;
const call = (path: string): Promise<ApiResponse> =>
  api(t.app.cabinetUrl as string, `/cabinet/v1/merchants/${shop.id}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
const ids = (r: ApiResponse) => r.body.data.map((i: { invoice_id: string }) => i.invoice_id);

beforeAll(async () => {
  t = await startChainApp();
  shop = await t.shop({ confirmations: 1 });
  const cabinet = t.app.cabinetUrl as string;
  const created = await createOwner(t.app.services.db, t.clock, 'test', {
    email: 'views@shop.example',
    merchantIds: [shop.id],
    cabinetUrl: cabinet,
  });
  expect(
    (
      await api(cabinet, '/cabinet/v1/account/setup', {
        body: { setup_token: created.setup_token, password: PASSWORD },
      })
    ).status,
  ).toBe(200);
  const signIn = await api(cabinet, '/cabinet/v1/sessions', {
    body: { email: 'views@shop.example', password: PASSWORD },
  });
  token = signIn.body.token;
}, 60_000);
afterAll(() => t?.close());

describe("an owner's invoices", () => {
  it('are found by order id, invoice id, deposit address or transaction hash, filtered by asset, with senders and status history', async () => {
    const paid = await t.create(shop.key, { order_id: 'order-paid', amount: '10' });
    const other = await t.create(shop.key, { order_id: 'order-usdc', amount: '5', asset: 'USDC_TRON' });
    const { accounts } = t.devnet.control.info();
    const tx = await t.pay(paid.address, '10', 'USDT_TRON', 1);
    await t.mine(3);
    await vi.waitFor(async () => expect((await call(`/invoices/${paid.invoice_id}`)).body.status).toBe('confirmed'), {
      timeout: 15_000,
    });

    for (const q of ['order-paid', paid.invoice_id, paid.address, tx])
      expect(ids(await call(`/invoices?q=${q}`)), q).toEqual([paid.invoice_id]);
    // The start of each, case as stored; ids exactly; fewer than 3 characters is refused.
    for (const q of ['order-pai', paid.address.slice(0, 6), tx.slice(0, 8)])
      expect(ids(await call(`/invoices?q=${q}`)), q).toEqual([paid.invoice_id]);
    expect(ids(await call(`/invoices?q=${tx.toUpperCase()}`))).toEqual([]);
    expect(ids(await call(`/invoices?q=${paid.invoice_id.slice(0, 8)}`))).toEqual([]);
    const short = await call('/invoices?q=or');
    expect([short.status, short.body.error.code, short.body.error.details]).toEqual([
      400,
      'validation_failed',
      [expect.objectContaining({ path: 'query.q' })],
    ]);
    expect(ids(await call('/invoices?asset=USDC_TRON'))).toEqual([other.invoice_id]);
    expect(ids(await call('/invoices?asset=USDT_TRON&q=order-usdc'))).toEqual([]);

    const detail = (await call(`/invoices/${paid.invoice_id}`)).body;
    expect(detail.deposits).toEqual([
      expect.objectContaining({ tx_hash: tx, from_address: accounts[1]!.address, amount: '10' }),
    ]);
    const steps = detail.status_history as { status: string; at: string; derived: boolean }[];
    expect(steps.map((s) => s.status)).toEqual(['created', 'seen', 'confirmed']);
    expect(steps[0]!.at).toBe(paid.created_at);
    expect(steps.every((s) => !s.derived)).toBe(true);
    // Oldest first, each at the time it was entered.
    expect([...steps.map((s) => s.at)].sort()).toEqual(steps.map((s) => s.at));
    // The list shows each invoice as its view does, without what only the view reads.
    const { exceptions, foreign_deposits, ...listed } = detail;
    expect([exceptions, foreign_deposits]).toEqual([[], []]);
    expect((await call(`/invoices?q=${tx}`)).body.data[0]).toEqual(listed);
  });

  it('an invoice from before the recorded history shows its creation and its current status, marked derived', async () => {
    const old = await t.create(shop.key, { order_id: 'order-old', amount: '3' });
    const { db } = t.app.services;
    // What a database from before the event outbox holds: the row, no events for it.
    await db
      .deleteFrom('webhook_deliveries')
      .where('event_id', 'in', db.selectFrom('events').select('id').where('subject_id', '=', old.invoice_id))
      .execute();
    await db.deleteFrom('events').where('subject_id', '=', old.invoice_id).execute();
    await db
      .updateTable('invoices')
      .set({ status: 'expired', updated_at: '2030-01-01T00:00:00.000Z' })
      .where('id', '=', old.invoice_id)
      .execute();
    expect((await call(`/invoices/${old.invoice_id}`)).body.status_history).toEqual([
      { status: 'created', at: old.created_at, derived: true },
      { status: 'expired', at: '2030-01-01T00:00:00.000Z', derived: true },
    ]);
  });
});

describe("an owner's payouts", () => {
  it("show the operator's reason for a rejected payout, and are found by reference, address or filtered by asset", async () => {
    const { db, catalog } = t.app.services;
    const to = newAddress();
    await creditMerchant(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', amount: '50', memo: 'test' });
    await addToWhitelist(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', address: to, delay: '0' });
    const payout = await api(t.url, '/v1/payouts', {
      key: shop.key,
      body: { reference: 'rent-may', asset: 'USDT_TRON', to_address: to, amount: '5' },
    });
    expect(payout.status).toBe(202);
    const id = payout.body.payout_id as string;
    await rejectPayout(db, t.clock, 'cli:operator', id, 'Address belongs to a sanctioned exchange');
    const shown = await call(`/payouts/${id}`);
    expect(shown.body).toMatchObject({
      status: 'rejected',
      reject_reason: 'Address belongs to a sanctioned exchange',
      fail_reason: null,
      hold_reason: null,
    });
    const found = (q: string) =>
      call(`/payouts?${q}`).then((r) => r.body.data.map((p: { payout_id: string }) => p.payout_id));
    for (const q of ['rent-may', id, to]) expect(await found(`q=${q}`), q).toEqual([id]);
    expect(await found('q=rent')).toEqual([id]);
    expect(await found('q=Rent')).toEqual([]);
    expect(await found('asset=USDC_TRON')).toEqual([]);
    expect(await found('asset=USDT_TRON&status=rejected')).toEqual([id]);
  });
});

describe("the dashboard's totals", () => {
  it('sum confirmed deposits of today, 7 and 30 days and the pending ones per asset, exactly', async () => {
    const before = (await call('/summary')).body;
    expect(before.merchant_id).toBe(shop.id);
    const usdt = before.assets.find((a: { asset: string }) => a.asset === 'USDT_TRON');
    expect(usdt).toEqual({
      asset: 'USDT_TRON',
      received_today: '10',
      received_7d: '10',
      received_30d: '10',
      pending: '0',
    });

    // 18 decimals: 12.5 tokens are more base units than one 64-bit sum holds.
    const usdd = await t.create(shop.key, { order_id: 'order-usdd', amount: '12.5', asset: 'USDD_TRON' });
    await t.pay(usdd.address, 125n * 10n ** 17n, 'USDD_TRON');
    await t.mine(2);
    await vi.waitFor(async () => expect((await call(`/invoices/${usdd.invoice_id}`)).body.status).toBe('confirmed'), {
      timeout: 15_000,
    });
    const afterBody = (await call('/summary')).body;
    const after = afterBody.assets;
    // The chart's days: 30 per asset received, oldest first, today last and holding the deposit.
    const usddDays = afterBody.daily.filter((d: { asset: string }) => d.asset === 'USDD_TRON');
    expect(usddDays).toHaveLength(30);
    expect(usddDays[29]).toEqual({ date: afterBody.today_from.slice(0, 10), asset: 'USDD_TRON', amount: '12.5' });
    expect(usddDays.slice(0, 29).map((d: { amount: string }) => d.amount)).toEqual(Array(29).fill('0'));
    expect(usddDays[0].date).toBe(
      new Date(Date.parse(afterBody.today_from) - 29 * 86_400_000).toISOString().slice(0, 10),
    );
    expect(afterBody.daily.filter((d: { asset: string }) => d.asset === 'USDT_TRON')).toHaveLength(30);
    expect(after.find((a: { asset: string }) => a.asset === 'USDD_TRON')).toEqual({
      asset: 'USDD_TRON',
      received_today: '12.5',
      received_7d: '12.5',
      received_30d: '12.5',
      pending: '0',
    });

    // A shop that waits for 20 confirmations: the payment is pending until then.
    const slow = await t.shop({ confirmations: 20 });
    const owner = await createOwner(t.app.services.db, t.clock, 'test', {
      email: 'slow@shop.example',
      merchantIds: [slow.id],
      cabinetUrl: t.app.cabinetUrl as string,
    });
    const cabinet = t.app.cabinetUrl as string;
    await api(cabinet, '/cabinet/v1/account/setup', { body: { setup_token: owner.setup_token, password: PASSWORD } });
    const slowToken = (
      await api(cabinet, '/cabinet/v1/sessions', { body: { email: 'slow@shop.example', password: PASSWORD } })
    ).body.token;
    const inv = await t.create(slow.key, { amount: '7.25' });
    await t.pay(inv.address, '7.25');
    await t.mine(1);
    const summary = await api(cabinet, `/cabinet/v1/merchants/${slow.id}/summary`, {
      headers: { authorization: `Bearer ${slowToken}` },
    });
    expect(summary.body.assets).toEqual([
      { asset: 'USDT_TRON', received_today: '0', received_7d: '0', received_30d: '0', pending: '7.25' },
    ]);
    expect(summary.body.daily).toEqual([]);
  });
});
