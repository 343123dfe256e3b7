/**
 * The cabinet page at 360 px and 1280 px, in light and dark mode: axe-core finds no violation on
 * any main view, and no view is wider than the screen. Then the explorer links: Tronscan for Nile
 * (and mainnet), none on the devnet.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditMerchant } from '../../src/ledger/operator.js';
import { requireMerchant } from '../../src/merchants/service.js';
import { pageDeps } from '../../src/pay/server.js';
import { createPageInvoice } from '../../src/pay/service.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { api } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { createOwner, grantOwnerMerchant } from '../../src/owners/service.js';
import {
  chromiumPresent,
  heading,
  OWNER_PASSWORD,
  signIn,
  startBrowserFixture,
  violations,
  type BrowserFixture,
} from './browser-fixture.js';

let f: BrowserFixture;
let invoiceId: string;
let payoutId: string;
let pageInvoiceId: string;

describe.skipIf(!chromiumPresent)('the cabinet page at phone and desk widths, light and dark', () => {
  beforeAll(async () => {
    f = await startBrowserFixture();
    const { db, catalog } = f.t.app.services;
    const { t, shop } = f;
    await setEndpoint(db, t.clock, 'test', shop.id, { url: 'http://127.0.0.1:9/hook', allowPrivate: true });
    await creditMerchant(db, t.clock, 'test', catalog, shop.id, {
      asset: 'USDT_TRON',
      amount: '1234567.5',
      memo: 'test',
    });
    const to = newAddress();
    await addToWhitelist(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', address: to, delay: '0' });
    const payout = await api(t.url, '/v1/payouts', {
      key: shop.key,
      body: { reference: 'supplier-0042', asset: 'USDT_TRON', to_address: to, amount: '25' },
    });
    payoutId = payout.body.payout_id;
    const invoice = await t.create(shop.key, { amount: '12.5' });
    invoiceId = invoice.invoice_id;
    await t.pay(invoice.address, '12.5');
    await t.mine(4);
    // A page invoice awaiting the customer's choice: a row and a detail without token or amounts.
    const { invoice: page } = await createPageInvoice(
      pageDeps(f.t.app.services),
      await requireMerchant(db, shop.id),
      { order_id: 'logo-design-0007', price: '1250', expires_in: 3600, description: 'Logo design, two drafts' },
      'test',
    );
    pageInvoiceId = page.invoice_id;
  }, 60_000);

  afterAll(async () => f?.close());

  for (const width of [360, 1280])
    for (const colorScheme of ['light', 'dark'] as const)
      it(`passes axe and fits at ${width} px, ${colorScheme}`, async () => {
        const page: Page = await f.page({ viewport: { width, height: 900 }, colorScheme });
        const check = async (view: string) => {
          expect(await violations(page), view).toEqual([]);
          expect(await page.evaluate('document.documentElement.scrollWidth'), view).toBeLessThanOrEqual(width);
        };
        await page.goto(`${f.cabinet}/`);
        await heading(page, 'Sign in');
        await check('sign-in');
        await signIn(page, f.email);
        await heading(page, 'Chain shop');
        await page.getByText('1,234,567.50').first().waitFor();
        await check('dashboard');
        if (width === 360) {
          // A phone: the header is one short band, and each row a card whose status and amount are on screen.
          expect(
            await page.evaluate("document.getElementById('nav').getBoundingClientRect().bottom"),
          ).toBeLessThanOrEqual(100);
          const card = page
            .getByRole('region', { name: 'The five newest invoices' })
            .locator('tr', { hasText: 'logo-design-0007' });
          for (const [cell, text] of [
            ['Status', 'created'],
            ['Requested', '$1,250.00'],
          ]) {
            const shown = card.locator(`td[data-label="${cell}"]`);
            expect(await shown.textContent()).toContain(text);
            const box = await shown.boundingBox();
            expect(box && box.x >= 0 && box.x + box.width <= width, cell).toBe(true);
          }
        }
        const views: Array<[string, string]> = [
          ['invoices', 'Invoices'],
          [`invoices/${invoiceId}`, 'Invoice'],
          [`invoices/${pageInvoiceId}`, 'Invoice'],
          ['invoices/new', 'New payment link'],
          ['payouts', 'Payouts'],
          [`payouts/${payoutId}`, 'Payout'],
          ['keys', 'API keys'],
          ['deliveries', 'Webhook deliveries'],
          ['settings', 'Settings'],
          ['reports', 'Reports'],
        ];
        for (const [tail, title] of views) {
          await page.goto(`${f.cabinet}/#/m/${f.shop.id}/${tail}`);
          await heading(page, title);
          await check(tail);
        }
        await page.getByRole('link', { name: 'Account' }).click();
        await heading(page, 'Account');
        await check('account');
        await page.getByRole('region', { name: 'Second factor' }).getByLabel('Current password').fill(OWNER_PASSWORD);
        await page.getByRole('button', { name: 'Set up a second factor' }).click();
        await page.getByRole('img', { name: /QR code/ }).waitFor();
        await check('second factor enrolment');
        expect(f.problems).toEqual([]);
        await page.context().close();
      }, 60_000);

  it('shows a viewer no control that changes the merchant', async () => {
    const { db } = f.t.app.services;
    const email = 'accountant@shop.example';
    const created = await createOwner(db, f.t.clock, 'test', {
      email,
      merchantIds: [f.shop.id],
      cabinetUrl: f.cabinet,
    });
    await grantOwnerMerchant(db, f.t.clock, 'test', email, f.shop.id, 'viewer');
    const setup = await api(f.cabinet, '/cabinet/v1/account/setup', {
      body: { setup_token: created.setup_token, password: OWNER_PASSWORD },
    });
    expect(setup.status).toBe(200);
    const page = await f.page({ viewport: { width: 360, height: 900 } });
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/settings`);
    await heading(page, 'Sign in');
    await signIn(page, email);
    await heading(page, 'Settings');
    await page.getByRole('heading', { name: 'Webhook endpoint', level: 2 }).waitFor();
    // Only reading is left: no form field, no button but the header's and the copy buttons.
    const main = page.locator('main');
    expect(await main.locator('input, select, textarea, form').count()).toBe(0);
    expect((await main.getByRole('button').allTextContents()).filter((t) => t !== 'Copy')).toEqual([]);
    expect(await violations(page)).toEqual([]);
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices`);
    await heading(page, 'Invoices');
    expect(await page.getByRole('link', { name: 'New payment link' }).count()).toBe(0);
    await page.context().close();
  }, 60_000);

  it('links addresses and transactions to no explorer on the devnet, and copies them', async () => {
    const page = await f.page({ permissions: ['clipboard-read', 'clipboard-write'] });
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices/${invoiceId}`);
    await heading(page, 'Sign in');
    await signIn(page, f.email);
    await heading(page, 'Invoice');
    expect(await page.locator('main a[href*="tronscan"]').count()).toBe(0);
    await page.getByRole('button', { name: 'Copy the address' }).first().click();
    await page.getByRole('button', { name: 'Copy the address' }).first().getByText('Copied').waitFor();
    const invoice = await f.t.invoice(f.shop.key, invoiceId);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(invoice.address);
    await page.context().close();
    // Without a clipboard (plain HTTP), the button says so and selects the text for the reader's copy.
    const bare = await f.page();
    await bare.addInitScript("Object.defineProperty(navigator, 'clipboard', { value: undefined })");
    await bare.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices/${invoiceId}`);
    await heading(bare, 'Sign in');
    await signIn(bare, f.email);
    await heading(bare, 'Invoice');
    const button = bare.getByRole('button', { name: 'Copy the address' }).first();
    const box = await button.boundingBox();
    expect(box?.height).toBeGreaterThanOrEqual(44);
    await button.click();
    await button.getByText('Copy failed').waitFor();
    const selected = await bare.evaluate(
      '(() => { const e = document.activeElement; return e.value.slice(e.selectionStart, e.selectionEnd); })()',
    );
    expect(selected).toBe(invoice.address);
    await bare.context().close();
  }, 60_000);
});
