/**
 * Payment links from the cabinet page, in Chromium over the real API: the owner fills the New
 * payment link form, gets the link with a copy button, finds the invoice in the list awaiting the
 * customer's choice with its price and description, and sees a refusal in words with the form kept.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, heading, signIn, startBrowserFixture, type BrowserFixture } from './browser-fixture.js';

let f: BrowserFixture;
let page: Page;

describe.skipIf(!chromiumPresent)('payment links in the cabinet page', () => {
  beforeAll(async () => {
    f = await startBrowserFixture();
    page = await f.page({ permissions: ['clipboard-read', 'clipboard-write'] });
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices`);
    await heading(page, 'Sign in');
    await signIn(page, f.email);
    await heading(page, 'Invoices');
  }, 60_000);

  afterAll(async () => f?.close());

  it('creates a payment link, copies it, and lists the invoice as awaiting the choice', async () => {
    await page.getByRole('link', { name: 'New payment link' }).click();
    await heading(page, 'New payment link');
    // Only the dollar tokens are offered: TRX is not one.
    expect(await page.getByLabel('TRX', { exact: false }).count()).toBe(0);
    await page.getByLabel('Price in US dollars').fill('19.99');
    await page.getByLabel('Order id').fill('order-1042');
    await page.getByLabel('Description (optional)').fill('Logo design, two drafts');
    await page.getByLabel('USDT · TRC-20').check();
    await page.getByLabel('USDC · TRC-20').check();
    await page.getByRole('button', { name: 'Create the link' }).click();
    await page.getByRole('heading', { name: 'Payment link for order-1042' }).waitFor();
    const url = (await page.locator('#pl-url').textContent()) as string;
    const id = /\/pay\/([0-9a-f-]{36})$/.exec(url)?.[1] as string;
    expect(id).toBeTruthy();
    await page.getByRole('button', { name: 'Copy the link' }).click();
    await page.getByRole('button', { name: 'Copy the link' }).getByText('Copied').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(url);
    // The server's own record of it: the offered tokens as ticked, nothing chosen yet.
    const record = await page.request.get(`${f.cabinet}/cabinet/v1/merchants/${f.shop.id}/invoices/${id}`);
    expect(await record.json()).toMatchObject({ price: '19.99', asset: null, awaiting_choice: true });

    await page.getByRole('link', { name: 'Invoices' }).click();
    await heading(page, 'Invoices');
    const row = page.getByRole('row').filter({ hasText: 'order-1042' });
    await row.waitFor();
    const text = (await row.textContent()) as string;
    expect(text).toContain('$19.99');
    expect(text).toContain('Logo design, two drafts');
    expect(text).toContain('Awaiting the customer’s choice');
    expect(text).not.toContain('null');

    await row.getByRole('link', { name: 'order-1042' }).click();
    await heading(page, 'Invoice');
    const details = page.locator('dl.fields');
    await details.getByText('Awaiting the customer’s choice').waitFor();
    expect(await details.textContent()).toContain(url);
    expect(await details.textContent()).not.toContain('null');
    expect(f.problems).toEqual([]);
  }, 60_000);

  it('shows a refusal in words and keeps the form', async () => {
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices/new`);
    await heading(page, 'New payment link');
    // USDT has 6 decimal places: a price with 7 cannot be paid in it.
    await page.getByLabel('Price in US dollars').fill('5.0000001');
    await page.getByLabel('Order id').fill('order-1043');
    await page.getByLabel('USDT · TRC-20').check();
    await page.getByRole('button', { name: 'Create the link' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText(/USDT_TRON cannot hold the price 5.0000001/).waitFor();
    expect(await page.getByLabel('Price in US dollars').inputValue()).toBe('5.0000001');
    expect(await page.getByLabel('Order id').inputValue()).toBe('order-1043');
    expect(await page.getByLabel('USDT · TRC-20').isChecked()).toBe(true);

    await page.getByLabel('Price in US dollars').fill('19,99');
    await page.getByRole('button', { name: 'Create the link' }).click();
    await alert.getByText(/^Not created: Price/).waitFor();

    const list = await page.request.get(`${f.cabinet}/cabinet/v1/merchants/${f.shop.id}/invoices?q=order-1043`);
    expect((await list.json()).data).toEqual([]);
    expect(f.problems).toEqual([]);
  }, 60_000);
});
