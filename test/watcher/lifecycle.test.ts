/**
 * The invoice lifecycle end to end: customer payments on the devnet, the chain watcher inside the
 * real app, the invoice read over HTTP. Default policy: 19 confirmations; the devnet's solid
 * height is head − 19, so a deposit is final one block after it is confirmed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChainApp, UNITS, type ChainTestApp } from './fixture.js';

let t: ChainTestApp;
let shop: { id: string; key: string };

beforeAll(async () => {
  t = await startChainApp();
  shop = await t.shop({ feePercent: '1' });
  await t.synced();
});
afterAll(() => t.close());

const types = async (invoiceId: string) =>
  (await t.events(shop.id)).filter((e) => e.subject_id === invoiceId).map((e) => e.type);

describe('invoice lifecycle', () => {
  it('exact payment: seen, confirmed at 19 confirmations, settled once final; credited amount less the fee, once', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    const before = await t.balanceOf(shop.id);
    const tx = await t.pay(inv.address, '10');
    await t.mine(1);
    let got = await t.invoice(shop.key, inv.invoice_id);
    expect(got).toMatchObject({ status: 'seen', amount_received: '10', amount_credited: '0' });
    expect(got.deposits).toEqual([
      { tx_hash: tx, amount: '10', confirmations: 1, status: 'seen', block_time: expect.any(String), late: false },
    ]);
    await t.mine(17);
    expect((await t.invoice(shop.key, inv.invoice_id)).status).toBe('seen');
    await t.mine(1);
    got = await t.invoice(shop.key, inv.invoice_id);
    expect(got).toMatchObject({ status: 'confirmed', amount_credited: '0' });
    expect(got.deposits[0]).toMatchObject({ confirmations: 19, status: 'confirmed' });
    await t.mine(1);
    got = await t.invoice(shop.key, inv.invoice_id);
    expect(got).toMatchObject({ status: 'settled', amount_received: '10', amount_credited: '9.9' });
    expect(await t.balanceOf(shop.id)).toBe(before + 9_900_000n);
    await t.mine(3);
    expect(await t.balanceOf(shop.id)).toBe(before + 9_900_000n);
    expect(await types(inv.invoice_id)).toEqual([
      'invoice.created',
      'invoice.seen',
      'invoice.confirmed',
      'invoice.settled',
    ]);
    const settled = (await t.events(shop.id)).find(
      (e) => e.subject_id === inv.invoice_id && e.type === 'invoice.settled',
    )!;
    expect(settled.data).toMatchObject({
      status: 'settled',
      amount_received: '10',
      amount_credited: '9.9',
      deposits: [{ tx_hash: tx, status: 'confirmed' }],
    });
    await t.check(true);
  });

  it('split payment: two deposits in different blocks confirm the invoice together', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    await t.pay(inv.address, '6');
    await t.mine(1);
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ status: 'seen', amount_received: '6' });
    await t.pay(inv.address, '4', 'USDT_TRON', 1);
    await t.mine(19);
    // The first deposit has 20 confirmations (final, but not enough alone); the second has 19.
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
      status: 'confirmed',
      amount_received: '10',
      amount_credited: '5.9',
    });
    await t.mine(1);
    const got = await t.invoice(shop.key, inv.invoice_id);
    expect(got).toMatchObject({ status: 'settled', amount_credited: '9.9' });
    expect(got.deposits).toHaveLength(2);
    await t.check(true);
  });

  it('overpayment is credited in full (less the fee of the invoice)', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    await t.pay(inv.address, '15');
    await t.mine(20);
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
      status: 'settled',
      amount_received: '15',
      amount_credited: '14.9',
    });
    await t.check(true);
  });

  it('underpaid at expiry (scan horizon, not the wall clock), then paid_late by a late deposit', async () => {
    const inv = await t.create(shop.key, { amount: '10', expires_in: 120 });
    await t.pay(inv.address, '4');
    await t.mine(20);
    // 60 s of blocks: still before expires_at.
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
      status: 'seen',
      amount_received: '4',
      amount_credited: '3.9',
    });
    // The wall clock passes expires_at, the scan does not yet: nothing expires.
    t.clock.advance(400_000);
    expect((await t.invoice(shop.key, inv.invoice_id)).status).toBe('seen');
    await t.mine(1);
    expect((await t.invoice(shop.key, inv.invoice_id)).status).toBe('underpaid');
    await t.pay(inv.address, '6');
    await t.mine(1);
    let got = await t.invoice(shop.key, inv.invoice_id);
    expect(got).toMatchObject({ status: 'underpaid', amount_received: '10' });
    expect(got.deposits.map((d: { late: boolean }) => d.late)).toEqual([false, true]);
    await t.mine(19);
    got = await t.invoice(shop.key, inv.invoice_id);
    expect(got).toMatchObject({ status: 'paid_late', amount_credited: '9.9' });
    expect(await types(inv.invoice_id)).toEqual([
      'invoice.created',
      'invoice.seen',
      'invoice.underpaid',
      'invoice.paid_late',
    ]);
    await t.check(true);
  });

  it('nothing paid: expired; a late full payment makes it paid_late and is credited', async () => {
    const inv = await t.create(shop.key, { amount: '10', expires_in: 60 });
    t.clock.advance(120_000);
    await t.mine(1);
    expect((await t.invoice(shop.key, inv.invoice_id)).status).toBe('expired');
    await t.pay(inv.address, '10');
    await t.mine(20);
    const got = await t.invoice(shop.key, inv.invoice_id);
    expect(got).toMatchObject({ status: 'paid_late', amount_received: '10', amount_credited: '9.9' });
    expect(got.deposits[0].late).toBe(true);
    expect(await types(inv.invoice_id)).toEqual(['invoice.created', 'invoice.expired', 'invoice.paid_late']);
    await t.check(true);
  });

  it('a payment smaller than the fee credits 0; the next deposit credits the rest, never a negative entry', async () => {
    const small = await t.shop({ feePercent: '3' });
    const inv = await t.create(small.key, { amount: '100' });
    await t.pay(inv.address, '2');
    await t.mine(20);
    expect(await t.invoice(small.key, inv.invoice_id)).toMatchObject({ status: 'seen', amount_credited: '0' });
    expect(await t.balanceOf(small.id)).toBe(0n);
    await t.pay(inv.address, '98');
    await t.mine(20);
    expect(await t.invoice(small.key, inv.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '97' });
    expect(await t.balanceOf(small.id)).toBe(97n * UNITS);
    await t.check(true);
  });

  it('another asset sent to an invoice address is a standalone deposit in its own asset, not a payment', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    const usdc = await t.pay(inv.address, '10', 'USDC_TRON');
    await t.mine(20);
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
      status: 'created',
      amount_received: '0',
      deposits: [],
    });
    expect(await t.balanceOf(shop.id, 'USDC_TRON')).toBe(9_900_000n);
    const ev = (await t.events(shop.id)).filter((e) => e.type.startsWith('deposit.') && e.data.tx_hash === usdc);
    expect(ev.map((e) => e.type)).toEqual(['deposit.seen', 'deposit.confirmed']);
    expect(ev[1]!.data).toMatchObject({
      address: inv.address,
      asset: 'USDC_TRON',
      amount: '10',
      status: 'confirmed',
      external_user_id: null,
    });
    await t.check(true);
  });

  it('TRX invoices; TRX from the hot wallet (sweeper top-ups) is not a deposit', async () => {
    const inv = await t.create(shop.key, { amount: '5', asset: 'TRX_TRON' });
    const db = t.app.services.db;
    // The hot wallet is made a funded devnet account so that it can send.
    await db.updateTable('wallet').set({ hot_address: t.devnet.accounts[3]!.address }).execute();
    await t.pay(inv.address, 3n * UNITS, 'TRX_TRON', 3);
    await t.pay(inv.address, 5n * UNITS, 'TRX_TRON', 0);
    await t.mine(20);
    const got = await t.invoice(shop.key, inv.invoice_id);
    expect(got).toMatchObject({ status: 'settled', amount_received: '5', amount_credited: '4.95' });
    expect(got.deposits).toHaveLength(1);
    await t.check(true);
  });

  it('a reverted token transfer (not SUCCESS) is no deposit', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    // Account 4 pays more than it holds: the call reverts on chain.
    const huge = 10n ** 15n;
    await t.pay(inv.address, huge, 'USDT_TRON', 4);
    await t.mine(20);
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
      status: 'created',
      amount_received: '0',
      deposits: [],
    });
    await t.check(true);
  });
});

describe('permanent addresses', () => {
  it('a deposit pays the oldest open invoice of the user in that asset; with none open it is standalone and credited', async () => {
    const per = await t.shop({ addressMode: 'per_user', feePercent: '2' });
    const first = await t.create(per.key, { amount: '5', external_user_id: 'alice' });
    const second = await t.create(per.key, { amount: '7', external_user_id: 'alice' });
    expect(second.address).toBe(first.address);
    await t.pay(first.address, '5');
    await t.mine(1);
    expect((await t.invoice(per.key, first.invoice_id)).status).toBe('seen');
    expect((await t.invoice(per.key, second.invoice_id)).status).toBe('created');
    await t.mine(19);
    expect((await t.invoice(per.key, first.invoice_id)).status).toBe('settled');
    await t.pay(first.address, '7');
    await t.mine(20);
    expect(await t.invoice(per.key, second.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '6.86' });
    const extra = await t.pay(first.address, '50');
    await t.mine(20);
    const ev = (await t.events(per.id)).filter((e) => e.data.tx_hash === extra);
    expect(ev.map((e) => e.type)).toEqual(['deposit.seen', 'deposit.confirmed']);
    expect(ev[0]!.data).toMatchObject({
      address: first.address,
      asset: 'USDT_TRON',
      external_user_id: 'alice',
      amount: '50',
      late: false,
    });
    // 4.9 + 6.86 + 49 (50 less the merchant's 2 percent).
    expect(await t.balanceOf(per.id)).toBe(4_900_000n + 6_860_000n + 49_000_000n);
    await t.check(true);
  });
});
