/**
 * The cabinet page's refunds, team and exports, in headless Chromium against the real app and the
 * devnet: a refund asks first, naming the amount and the token, and a refusal is said in words
 * that replace the earlier success; the invoice lists its refunds; the merchant's refunds list;
 * the owner invites a viewer and removes them after a confirmation; a viewer sees no refund form
 * and no Team section; "Download CSV" saves exactly the filtered rows. axe-clean at 360 px.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { creditMerchant } from '../../src/ledger/operator.js';
import { api } from '../helpers/http.js';
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
let page: Page;

const fits = async (p: Page, view: string) => {
  expect(await violations(p), view).toEqual([]);
  expect(await p.evaluate('document.documentElement.scrollWidth'), view).toBeLessThanOrEqual(360);
};

describe.skipIf(!chromiumPresent)('refunds, the team and exports on the cabinet page', () => {
  beforeAll(async () => {
    f = await startBrowserFixture();
    const { db, catalog } = f.t.app.services;
    const { t, shop } = f;
    // Room for the payout fee on top of a refund.
    await creditMerchant(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', amount: '100', memo: 'test' });
    const invoice = await t.create(shop.key, { amount: '12.5', order_id: 'ord-refund-1' });
    invoiceId = invoice.invoice_id;
    await t.create(shop.key, { amount: '3', order_id: 'ord-other-1' });
    await t.pay(invoice.address, '12.5');
    await t.mine(4);
    const own = `/cabinet/v1/merchants/${shop.id}/invoices/${invoiceId}`;
    const token = (await api(f.cabinet, '/cabinet/v1/sessions', { body: { email: f.email, password: OWNER_PASSWORD } }))
      .body.token as string;
    await vi.waitFor(
      async () =>
        expect((await api(f.cabinet, own, { headers: { authorization: `Bearer ${token}` } })).body.status).toBe(
          'confirmed',
        ),
      { timeout: 20_000 },
    );
    // Booked as the settlement books a credit (this devnet shop's settlement is not under test here).
    await db.updateTable('invoices').set({ amount_credited: '12500000' }).where('id', '=', invoiceId).execute();
    page = await f.page({ viewport: { width: 360, height: 900 }, acceptDownloads: true });
    await page.goto(`${f.cabinet}/#/m/${shop.id}/invoices/${invoiceId}`);
    await heading(page, 'Sign in');
    await signIn(page, f.email);
    await heading(page, 'Invoice');
  }, 90_000);

  afterAll(async () => f?.close());

  it('refunds after a confirmation naming the amount and the token; a refusal replaces the success', async () => {
    const form = page.getByRole('form', { name: 'Refund' });
    await form.getByLabel('Amount').fill('2');
    await form.getByRole('button', { name: 'Refund…' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Refund 2.00 USDT?' });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain('ord-refund-1');
    await fits(page, 'refund confirmation');
    // Nothing is reserved before the confirmation.
    const count = async () =>
      (await f.t.app.services.db.selectFrom('refunds').select('id').where('merchant_id', '=', f.shop.id).execute())
        .length;
    expect(await count()).toBe(0);
    await confirm.getByRole('button', { name: 'Send 2.00 USDT back' }).click();
    await form.getByText('Refund of 2.00 USDT created.').waitFor();
    expect(await count()).toBe(1);
    const refunds = page.getByRole('table', { name: 'Refunds of this invoice, newest first' });
    await refunds.getByText('waiting for the customer’s address').waitFor();
    expect(await refunds.textContent()).toContain('/pay/refund/');

    // More than the invoice brought: refused in words, and the earlier success is gone.
    await form.getByLabel('Amount').fill('50');
    await form.getByRole('button', { name: 'Refund…' }).click();
    await page.getByRole('alertdialog', { name: 'Refund 50.00 USDT?' }).getByRole('button', { name: /Send/ }).click();
    await form.getByRole('alert').filter({ hasText: 'more than this invoice brought' }).waitFor();
    expect(await form.getByText('Refund of 2.00 USDT created.').count()).toBe(0);
    expect(await form.textContent()).not.toContain('refund_exceeds_received');
    expect(await count()).toBe(1);
    await fits(page, 'refund refused');

    await page.getByRole('link', { name: 'Refunds' }).click();
    await heading(page, 'Refunds');
    const list = page.getByRole('table', { name: 'Refunds, newest first' });
    await list.getByText('2.00').waitFor();
    await fits(page, 'refunds list');
    expect(f.problems).toEqual([]);
  }, 90_000);

  it('downloads the filtered list as CSV from the link under it', async () => {
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices?q=ord-ref`);
    await heading(page, 'Invoices');
    await page.getByRole('table').getByText('ord-refund-1').waitFor();
    await page.getByText(/Matches the start of an order id/).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const text = readFileSync((await download.path())!, 'utf8');
    const lines = text.trim().split('\r\n');
    expect(lines[0]!.startsWith('invoice_id,created_at_utc,order_id,')).toBe(true);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('ord-refund-1');
    expect(text).not.toContain('ord-other-1');
    await fits(page, 'invoices with the CSV link');
  }, 60_000);

  it('lets the owner invite a viewer and remove them after a confirmation; the viewer gets no form and no Team', async () => {
    await page.getByRole('link', { name: 'Team' }).click();
    await heading(page, 'Team');
    await fits(page, 'team');
    const invite = page.getByRole('form', { name: 'Invite a viewer' });
    await invite.getByLabel('Email').fill('books@shop.example');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await invite.getByText('books@shop.example is invited.').waitFor();
    const link = (await invite.locator('code').textContent())!;
    expect(link).toContain('#setup=');
    await page.getByRole('table').getByText('books@shop.example').waitFor();
    await fits(page, 'team with an invitation');

    // The viewer sets a password through the link and signs in: no refund form, no Team section.
    const viewer = await f.page({ viewport: { width: 360, height: 900 } });
    await viewer.goto(link.replace(/^https?:\/\/[^/#]+\/?/, `${f.cabinet}/`));
    await viewer.getByLabel('New password', { exact: true }).fill(OWNER_PASSWORD);
    await viewer.getByLabel('Repeat the password').fill(OWNER_PASSWORD);
    await viewer.getByRole('button', { name: 'Set the password' }).click();
    await viewer.getByRole('link', { name: 'Account' }).waitFor();
    await viewer.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices/${invoiceId}`);
    await heading(viewer, 'Invoice');
    await viewer.getByRole('heading', { name: 'Refunds', level: 2 }).waitFor();
    expect(await viewer.getByRole('form', { name: 'Refund' }).count()).toBe(0);
    expect(await viewer.getByRole('link', { name: 'Team' }).count()).toBe(0);
    await fits(viewer, 'viewer invoice');
    await viewer.context().close();

    await page.getByRole('button', { name: 'Remove books@shop.example' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Remove books@shop.example?' });
    await confirm.waitFor();
    await fits(page, 'remove confirmation');
    await confirm.getByRole('button', { name: 'Keep' }).click();
    expect(await page.getByRole('table').getByText('books@shop.example').count()).toBe(1);
    await page.getByRole('button', { name: 'Remove books@shop.example' }).click();
    await page.getByRole('button', { name: 'Remove books@shop.example', exact: true }).last().click();
    await vi.waitFor(async () => expect(await page.getByRole('table').getByText('books@shop.example').count()).toBe(0));
    expect(f.problems).toEqual([]);
  }, 90_000);
});
