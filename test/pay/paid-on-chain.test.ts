/**
 * A page invoice paid on the devnet through the chain watcher: the customer picks USDT on the page's
 * API, pays the address and amount it shows, and the payment is seen, confirmed and settled on /v1
 * and on the page's view alike, with the webhook events of any invoice from the choice on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireMerchant } from '../../src/merchants/service.js';
import { pageDeps } from '../../src/pay/server.js';
import { createPageInvoice } from '../../src/pay/service.js';
import { api } from '../helpers/http.js';
import { startChainApp, type ChainTestApp } from '../watcher/fixture.js';

let t: ChainTestApp;
let shop: { id: string; key: string };

beforeAll(async () => {
  t = await startChainApp();
  shop = await t.shop({ feePercent: '1', confirmations: 3 });
});
afterAll(() => t?.close());

describe('a page invoice paid on chain', () => {
  it('is seen, confirmed and settled on /v1 and on the page view', async () => {
    const s = t.app.services;
    const { invoice: page } = await createPageInvoice(
      pageDeps(s),
      await requireMerchant(s.db, shop.id),
      { order_id: 'chain-page-1', price: '12.5', expires_in: 3600, description: 'A chair' },
      'test',
    );
    const pay = t.app.payUrl as string;
    const view = (path = '') => api(pay, `/pay/v1/invoices/${page.invoice_id}${path}`);
    const chosen = await api(pay, `/pay/v1/invoices/${page.invoice_id}/asset`, { body: { asset: 'USDT_TRON' } });
    expect(chosen.status, chosen.text).toBe(201);
    const { address, amount_expected: amount } = chosen.body as { address: string; amount_expected: string };
    expect(amount).toBe('12.5');

    const tx = await t.pay(address, amount);
    await t.mine(1);
    let seen = (await view()).body;
    expect(seen).toMatchObject({ status: 'seen', amount_received: '12.5' });
    expect(seen.deposits).toEqual([{ tx_hash: tx, amount: '12.5', confirmations: 1 }]);

    await t.mine(2);
    seen = (await view()).body;
    expect(seen.status).toBe('confirmed');
    expect(seen.deposits[0].confirmations).toBe(3);
    const v1 = await t.invoice(shop.key, page.invoice_id);
    expect(v1).toMatchObject({ status: 'confirmed', checkout_url: page.checkout_url, amount_received: '12.5' });

    // Settled once the block is final (solid at head − 19 on the devnet).
    await t.mine(17);
    expect((await view()).body.status).toBe('settled');
    expect(await t.invoice(shop.key, page.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '12.375' });
    const events = (await t.events(shop.id)).filter((e) => e.subject_id === page.invoice_id);
    expect(events.map((e) => e.type)).toEqual([
      'invoice.created',
      'invoice.seen',
      'invoice.confirmed',
      'invoice.settled',
    ]);
    for (const e of events) {
      expect(e.data).not.toHaveProperty('price');
      expect(e.data.checkout_url).toBe(page.checkout_url);
    }
    await t.check(true);
  });

  it('tells what is still due, what was paid too much, and the deposits of another token', async () => {
    const s = t.app.services;
    const { invoice: page } = await createPageInvoice(
      pageDeps(s),
      await requireMerchant(s.db, shop.id),
      { order_id: 'chain-page-2', price: '12.5', expires_in: 3600 },
      'test',
    );
    const pay = t.app.payUrl as string;
    const view = async () => (await api(pay, `/pay/v1/invoices/${page.invoice_id}`)).body;
    const chosen = await api(pay, `/pay/v1/invoices/${page.invoice_id}/asset`, { body: { asset: 'USDT_TRON' } });
    const { address } = chosen.body as { address: string };
    expect(chosen.body).toMatchObject({ amount_due: '12.5', amount_overpaid: '0', foreign_deposits: [] });

    await t.pay(address, '4');
    const usdc = await t.pay(address, '10', 'USDC_TRON');
    await t.mine(1);
    expect(await view()).toMatchObject({
      amount_received: '4',
      amount_due: '8.5',
      amount_overpaid: '0',
      foreign_deposits: [{ asset: 'USDC_TRON', amount: '10', tx_hash: usdc }],
    });

    await t.pay(address, '10');
    await t.mine(1);
    expect(await view()).toMatchObject({ amount_received: '14', amount_due: '0', amount_overpaid: '1.5' });
  });
});
