/**
 * Exceptions from real deposits on the devnet, through the watcher inside the real app: underpaid,
 * overpaid, paid late, another asset (dust makes none), a fork that drops the deposit that caused
 * one, and a resolve that answers 409 the second time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageExceptions, resolveByPerson } from '../../src/exceptions/service.js';
import { startChainApp, type ChainTestApp } from '../watcher/fixture.js';

let t: ChainTestApp;
let shop: { id: string; key: string };

beforeAll(async () => {
  t = await startChainApp();
  shop = await t.shop();
  await t.synced();
});
afterAll(() => t.close());

const open = async () => (await pageExceptions(t.app.services.db, { merchant_id: shop.id, open: 'true' })).data;
const of = async (invoiceId: string) => (await open()).filter((e) => e.invoice_id === invoiceId);

describe('exceptions', () => {
  it('overpaid: the excess, opened when the invoice confirms; a second resolve is 409 invalid_state', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    await t.pay(inv.address, '15');
    await t.mine(20);
    const [e] = await of(inv.invoice_id);
    expect(e).toMatchObject({
      kind: 'overpaid',
      amount: '5',
      asset: 'USDT_TRON',
      merchant_id: shop.id,
      resolution: null,
    });
    const db = t.app.services.db;
    const done = await resolveByPerson(db, t.clock, e!.exception_id, ' refunded by card ', {
      by: 'acct',
      actor: 'test',
    });
    expect(done.resolution).toEqual({ note: 'refunded by card', by: 'acct', refund_id: null });
    await expect(
      resolveByPerson(db, t.clock, e!.exception_id, 'again', { by: 'acct', actor: 'test' }),
    ).rejects.toMatchObject({
      code: 'invalid_state',
    });
    await expect(
      resolveByPerson(db, t.clock, '0190a000-0000-7000-8000-000000000000', 'x', { by: 'acct', actor: 'test' }),
    ).rejects.toMatchObject({ code: 'exception_not_found' });
    // Another merchant's owner sees it as absent.
    await expect(
      resolveByPerson(db, t.clock, e!.exception_id, 'x', {
        by: 'acct',
        actor: 'test',
        merchantId: '0190a000-0000-7000-8000-000000000001',
      }),
    ).rejects.toMatchObject({ code: 'exception_not_found' });
    expect(await of(inv.invoice_id)).toEqual([]);
  });

  it('underpaid at expiry with the shortfall, replaced by paid_late when the late deposit confirms', async () => {
    const inv = await t.create(shop.key, { amount: '10', expires_in: 120 });
    await t.pay(inv.address, '4');
    await t.mine(20);
    t.clock.advance(400_000);
    await t.mine(1);
    expect(await of(inv.invoice_id)).toMatchObject([{ kind: 'underpaid', amount: '6' }]);
    await t.pay(inv.address, '7');
    await t.mine(20);
    expect((await t.invoice(shop.key, inv.invoice_id)).status).toBe('paid_late');
    expect(await of(inv.invoice_id)).toMatchObject([{ kind: 'paid_late', amount: '7' }]);
  });

  it('another asset to an open invoice: one exception whose amount grows; dust makes none; a fork takes a deposit back out', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    await t.pay(inv.address, '0.5', 'USDC_TRON');
    await t.mine(1);
    expect(await of(inv.invoice_id)).toEqual([]);
    await t.pay(inv.address, '10', 'USDC_TRON');
    await t.mine(1);
    await t.pay(inv.address, '3', 'USDC_TRON', 1);
    await t.mine(1);
    const [e] = await of(inv.invoice_id);
    expect(e).toMatchObject({ kind: 'foreign_asset', asset: 'USDC_TRON', amount: '13' });
    // The block of the 3 USDC is replaced by one without it: the exception holds the 10 left.
    t.devnet.control.fork(1, 'drop');
    await t.mine(1);
    expect(await of(inv.invoice_id)).toMatchObject([{ exception_id: e!.exception_id, amount: '10' }]);
    // Now the 10 as well: nothing is left to show.
    t.devnet.control.fork(3, 'drop');
    await t.mine(1);
    expect(await of(inv.invoice_id)).toEqual([]);
  });
});
