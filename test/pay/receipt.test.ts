/**
 * The receipt of a page invoice, over HTTP through a real payment on the devnet: before the payment
 * (before the choice, and chosen but unpaid) `/pay/{id}/receipt` is the same not-found page as an
 * unknown id, in the customer's language, and the JSON receipt 404 invoice_not_found; once paid the
 * page is served and the receipt names the merchant, the order, the price, what was paid and each
 * transaction, linked to Tronscan on mainnet and Nile and to nothing on the devnet. A refund's claim
 * page answers for a refund that exists and is the not-found page otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireMerchant } from '../../src/merchants/service.js';
import { getReceipt } from '../../src/pay/receipt.js';
import { pageDeps } from '../../src/pay/server.js';
import { createPageInvoice } from '../../src/pay/service.js';
import { createRefund, refundDeps } from '../../src/refunds/service.js';
import { api } from '../helpers/http.js';
import { startChainApp, type ChainTestApp } from '../watcher/fixture.js';

const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'accept-language': 'es-ES,es;q=0.9' };
const UNKNOWN = '0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b';

let t: ChainTestApp;
let shop: { id: string; key: string };

beforeAll(async () => {
  t = await startChainApp();
  shop = await t.shop({ confirmations: 2 });
});
afterAll(() => t?.close());

async function notFoundPage(path: string): Promise<void> {
  const r = await fetch(`${t.app.payUrl}${path}`, { headers: BROWSER });
  expect([path, r.status]).toEqual([path, 404]);
  expect(r.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await r.text();
  expect(html).toContain('<html lang="es">');
  expect(html).toContain('Página no encontrada');
}

describe('the receipt', () => {
  it('is the not-found page before the payment, and the paid invoice’s receipt after it', async () => {
    const s = t.app.services;
    const { invoice } = await createPageInvoice(
      pageDeps(s),
      await requireMerchant(s.db, shop.id),
      { order_id: 'receipt-1', price: '12.5', expires_in: 3600, description: 'A lamp' },
      'test',
    );
    const id = invoice.invoice_id;
    const json = () => api(t.app.payUrl as string, `/pay/v1/invoices/${id}/receipt`);

    await notFoundPage(`/pay/${id}/receipt`);
    await notFoundPage(`/pay/${UNKNOWN}/receipt`);
    expect([(await json()).status, (await json()).body.error.code]).toEqual([404, 'invoice_not_found']);

    const chosen = await api(t.app.payUrl as string, `/pay/v1/invoices/${id}/asset`, { body: { asset: 'USDT_TRON' } });
    expect(chosen.status, chosen.text).toBe(201);
    await notFoundPage(`/pay/${id}/receipt`);
    const tx = await t.pay(chosen.body.address as string, '12.5');
    await t.mine(1);
    // Seen, not confirmed: still no receipt.
    await notFoundPage(`/pay/${id}/receipt`);
    expect((await json()).status).toBe(404);

    await t.mine(1);
    const page = await fetch(`${t.app.payUrl}/pay/${id}/receipt`, { headers: BROWSER });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<script type="module" src="\/pay\/app-[A-Z0-9]{8}\.js">/);
    const receipt = await json();
    expect(receipt.status, receipt.text).toBe(200);
    expect(receipt.body).toMatchObject({
      invoice_id: id,
      merchant_name: 'Chain shop',
      order_id: 'receipt-1',
      description: 'A lamp',
      price: '12.5',
      price_currency: 'USD',
      status: 'confirmed',
      asset: 'USDT_TRON',
      amount_paid: '12.5',
      transactions: [{ tx_hash: tx, amount: '12.5', explorer_url: null }],
    });
    expect(Date.parse(receipt.body.paid_at as string)).toBeLessThanOrEqual(t.clock.now().getTime());

    // The same receipt on an instance watching Nile or mainnet links each transaction to Tronscan.
    const nile = await getReceipt({ ...pageDeps(s), network: 'nile' }, id);
    expect(nile.transactions[0]?.explorer_url).toBe(`https://nile.tronscan.org/#/transaction/${tx}`);
    const mainnet = await getReceipt({ ...pageDeps(s), network: 'mainnet' }, id);
    expect(mainnet.transactions[0]?.explorer_url).toBe(`https://tronscan.org/#/transaction/${tx}`);

    // A refund of it has its claim page; an unknown refund is the not-found page.
    await t.mine(20);
    const refund = await createRefund(refundDeps(s), shop.id, id, { amount: '1' }, 'test');
    const claim = await fetch(refund.claim_url, { headers: BROWSER });
    expect(claim.status).toBe(200);
    expect(claim.headers.get('content-type')).toMatch(/^text\/html/);
    await notFoundPage(`/pay/refund/${UNKNOWN}`);
    const view = await api(t.app.payUrl as string, `/pay/v1/refunds/${refund.refund_id}`);
    expect(view.body).toMatchObject({ amount: '1', asset: 'USDT_TRON', status: 'awaiting_address', tx_hash: null });
  });
});
