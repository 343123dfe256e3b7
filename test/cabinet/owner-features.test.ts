/**
 * What owners expect of the cabinet page, in Chromium over the real API: search and the asset
 * filter, the payer's address and the status history, payout reasons, dashboard totals, webhook
 * self-service (URL, secret once, test event, deliveries linked), the whitelist and limits, the
 * password change, the sessions with "end this session", recovery codes at enrolment and sign-in
 * with one, new recovery codes and turning the second factor off (each after the password),
 * exceptions (dashboard count, list, resolve with a note, the invoice's own).
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/owners/totp.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { rejectPayout } from '../../src/payouts/operator.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { api } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
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
let page: Page;
let paid: { invoice_id: string; order_id: string; address: string };
let rejectedId: string;
let to: string;

describe.skipIf(!chromiumPresent)('what owners expect, in the cabinet page', () => {
  beforeAll(async () => {
    f = await startBrowserFixture();
    const { db, catalog } = f.t.app.services;
    const { t, shop } = f;
    await creditMerchant(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', amount: '50', memo: 'test' });
    to = newAddress();
    await addToWhitelist(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', address: to, delay: '0' });
    const r = await api(t.url, '/v1/payouts', {
      key: shop.key,
      body: { reference: 'supplier-7', asset: 'USDT_TRON', to_address: to, amount: '5' },
    });
    rejectedId = r.body.payout_id;
    await rejectPayout(db, t.clock, 'operator', rejectedId, 'the supplier is unknown to us');
    paid = await t.create(shop.key, { order_id: 'order-paid', amount: '12.5' });
    await t.create(shop.key, { order_id: 'order-open', amount: '3' });
    await t.pay(paid.address, '12.5');
    await t.mine(4);
    page = await f.page();
    await page.goto(`${f.cabinet}/`);
    await heading(page, 'Sign in');
    await signIn(page, f.email);
    await heading(page, 'Chain shop');
  }, 60_000);

  afterAll(async () => f?.close());

  it('shows the totals received and searches the lists by order id and asset', async () => {
    await page.getByRole('heading', { name: 'Received', level: 2 }).waitFor();
    const totals = page.getByRole('region', { name: /Confirmed deposits per asset/ });
    expect(await totals.textContent()).toContain('12.50 USDT');
    await page.getByRole('link', { name: 'Invoices' }).click();
    await heading(page, 'Invoices');
    await page.getByRole('link', { name: 'order-open' }).waitFor();
    await page.getByLabel('Search').fill('order-paid');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/q=order-paid/);
    await page.getByRole('link', { name: 'order-open' }).waitFor({ state: 'detached' });
    expect(await page.getByRole('link', { name: 'order-paid' }).count()).toBe(1);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Asset').selectOption('TRX_TRON');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('no invoice matches').waitFor();
  }, 60_000);

  it("shows the payer's address and the status history of an invoice", async () => {
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices/${paid.invoice_id}`);
    await heading(page, 'Invoice');
    const deposits = page.getByRole('region', { name: /Deposits of this invoice/ });
    await deposits.getByRole('button', { name: 'Copy the address' }).waitFor();
    // The sender the API records for the deposit, as the page's own session reads it.
    const record = await page.request.get(`${f.cabinet}/cabinet/v1/merchants/${f.shop.id}/invoices/${paid.invoice_id}`);
    const payer = (await record.json()).deposits[0].from_address as string;
    expect(payer).toMatch(/^T/);
    expect(await deposits.locator('code[title]').nth(1).getAttribute('title')).toBe(payer);
    const history = page.getByRole('region', { name: /Every status of this invoice/ });
    expect(await history.textContent()).toMatch(/created.*seen.*confirmed/s);
  }, 60_000);

  it('counts an overpaid invoice and another token on the dashboard, lists them, resolves one with a note', async () => {
    const over = await f.t.create(f.shop.key, { order_id: 'order-over', amount: '2' });
    await f.t.pay(over.address, '3.25');
    await f.t.pay(over.address, '10', 'USDC_TRON');
    await f.t.mine(4);
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}`);
    await heading(page, 'Chain shop');
    await page.getByRole('link', { name: '2 exceptions need attention' }).click();
    await heading(page, 'Exceptions');
    const list = page.getByRole('region', { name: 'Open exceptions, newest first' });
    expect(await list.textContent()).toMatch(/Paid too much.*1\.25 USDT/s);
    expect(await list.textContent()).toMatch(/Another token sent.*10\.00 USDC/s);
    expect(await violations(page)).toEqual([]);
    await list.getByRole('button', { name: /Resolve Paid too much/ }).click();
    await page.getByLabel(/Note/).fill('refunded 1.25 USDT to the customer');
    await page.getByRole('button', { name: 'Mark resolved' }).click();
    await page.getByRole('status').filter({ hasText: 'The exception is resolved' }).waitFor();
    await list.getByText('Paid too much').waitFor({ state: 'detached' });
    expect(await list.textContent()).toContain('Another token sent');
    await page.getByLabel('Show').selectOption('false');
    await page.getByRole('button', { name: 'Show' }).click();
    const resolved = page.getByRole('region', { name: 'Resolved exceptions, newest first' });
    expect(await resolved.textContent()).toContain('refunded 1.25 USDT to the customer');
    await resolved.getByRole('link', { name: /^Invoice / }).click();
    await heading(page, 'Invoice');
    const ofInvoice = page.getByRole('region', { name: /Exceptions of this invoice/ });
    expect(await ofInvoice.textContent()).toMatch(/Paid too much.*refunded 1\.25 USDT/s);
    const foreign = page.getByRole('region', { name: /Deposits of another token/ });
    expect(await foreign.textContent()).toMatch(/USDC · TRC-20.*10\.00 USDC.*confirmed/s);
  }, 120_000);

  it("shows the operator's reason of a rejected payout", async () => {
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/payouts/${rejectedId}`);
    await heading(page, 'Payout');
    await page.getByText('the supplier is unknown to us').waitFor();
  }, 60_000);

  it('sets the webhook endpoint, shows its secret once, sends a test event; shows limits and the whitelist', async () => {
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/settings`);
    await heading(page, 'Settings');
    expect(await page.getByRole('region', { name: /Addresses payouts may go to/ }).textContent()).toContain(
      to.slice(0, 8),
    );
    await page.getByLabel('Endpoint URL').fill('https://shop.example/hooks/paygate');
    await page.getByRole('button', { name: /Set the endpoint|Save the endpoint/ }).click();
    await page.getByRole('status').filter({ hasText: 'The webhook endpoint is saved' }).waitFor();
    expect(await page.locator('#webhook-secret').textContent()).toMatch(/^whsec_/);
    await page.reload();
    await heading(page, 'Settings');
    expect(await page.locator('#webhook-secret').count()).toBe(0);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page
      .getByText(/The test event was (accepted|refused)/)
      .first()
      .waitFor();
  }, 60_000);

  it('enrols the second factor with recovery codes, signs in with one, ends another session, makes new codes and turns it off', async () => {
    await page.goto(`${f.cabinet}/#/account`);
    await heading(page, 'Account');
    const factor = page.getByRole('region', { name: 'Second factor' });
    await factor.getByLabel('Current password').fill(OWNER_PASSWORD);
    await page.getByRole('button', { name: 'Set up a second factor' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    const secret = (await page.locator('#totp-secret').textContent()) as string;
    await page.getByLabel('Code from the app').fill(totpCode(secret, f.t.clock.now()));
    await page.getByRole('button', { name: 'Turn the second factor on' }).click();
    const list = page.getByRole('list', { name: 'Recovery codes' });
    await list.waitFor();
    const codes = await list.locator('code').allTextContents();
    expect(codes.length).toBe(10);
    // The codes download as a text file, and stay on screen until the owner says they are saved.
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download (.txt)' }).click();
    const file = await (await download).path();
    expect(readFileSync(file, 'utf8')).toContain(codes.join('\n'));
    const hide = page.getByRole('button', { name: 'Hide the codes' });
    expect(await hide.isDisabled()).toBe(true);
    await page.getByLabel('I saved them').check();
    await hide.click();
    await list.waitFor({ state: 'detached' });

    // A second browser signs in with a recovery code; the first ends that session.
    const other = await f.page();
    await other.goto(`${f.cabinet}/#/m/${f.shop.id}/keys`);
    await heading(other, 'Sign in');
    // A wrong code first: the next sign-in says so, and stays on screen.
    await signIn(other, f.email, OWNER_PASSWORD, '000000');
    await other.getByRole('alert').filter({ hasText: 'Sign-in failed' }).waitFor();
    await other.getByText('Lost the authenticator? Use a recovery code').click();
    await other.getByLabel('Recovery code').fill(codes[0] as string);
    await signIn(other, f.email);
    await heading(other, 'API keys');
    const notice = other.getByRole('status').filter({ hasText: 'Recovery codes left: 9' });
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/1 wrong authentication codes? .*change the password/);

    await page.reload();
    await heading(page, 'Account');
    const sessions = page.getByRole('region', { name: 'Where this account is signed in' });
    expect(await sessions.getByText('this session', { exact: true }).count()).toBe(1);
    await sessions
      .getByRole('button', { name: /End this session/ })
      .first()
      .click();
    await page.getByRole('status').filter({ hasText: 'The session has ended' }).waitFor();
    await other.reload();
    await heading(other, 'Sign in');
    await other.context().close();

    // New recovery codes after the password (a wrong one is said in words, and nothing is made).
    await factor.getByRole('button', { name: 'New recovery codes' }).click();
    await factor.getByLabel('Current password').fill('not it at all, sorry');
    await factor.getByRole('button', { name: 'Make new recovery codes' }).click();
    await factor.getByRole('alert').filter({ hasText: 'The current password is not right.' }).waitFor();
    await factor.getByLabel('Current password').fill(OWNER_PASSWORD);
    await factor.getByRole('button', { name: 'Make new recovery codes' }).click();
    await list.waitFor();
    const renewed = await list.locator('code').allTextContents();
    expect(renewed.length).toBe(10);
    expect(renewed).not.toContain(codes[1]);
    await page.getByLabel('I saved them').check();
    await page.getByRole('button', { name: 'Hide the codes' }).click();
    await list.waitFor({ state: 'detached' });

    // Off with the password and a code: an old recovery code no longer counts; a new one does.
    await factor.getByRole('button', { name: 'Turn off the second factor' }).click();
    expect(await violations(page), 'the form that turns the second factor off').toEqual([]);
    await factor.getByLabel('Current password').fill(OWNER_PASSWORD);
    await factor.getByLabel('Code', { exact: true }).fill(codes[1] as string);
    await factor.getByRole('button', { name: 'Turn the second factor off' }).click();
    await factor.getByRole('alert').filter({ hasText: 'That code is not right' }).waitFor();
    await factor.getByLabel('Code', { exact: true }).fill(renewed[0] as string);
    await factor.getByRole('button', { name: 'Turn the second factor off' }).click();
    await factor.getByText('The second factor is off.').waitFor();
    const plain = await api(f.cabinet, '/cabinet/v1/sessions', { body: { email: f.email, password: OWNER_PASSWORD } });
    expect(plain.status, plain.text).toBe(201);
    // Every password check above counts against the account's sign-in limit: a new minute of it.
    f.t.clock.advance(60_000);
  }, 120_000);

  it('changes the password; a refusal clears the earlier success message', async () => {
    await page.goto(`${f.cabinet}/#/account`);
    await heading(page, 'Account');
    const passwordForm = page.getByRole('region', { name: 'Password', exact: true });
    await passwordForm.getByLabel('Current password').fill(OWNER_PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill(`${OWNER_PASSWORD} 1`);
    await page.getByLabel('Repeat the new password').fill(`${OWNER_PASSWORD} 1`);
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByRole('status').filter({ hasText: 'The password is changed' }).waitFor();
    await passwordForm.getByLabel('Current password').fill('not it at all, sorry');
    await page.getByLabel('New password', { exact: true }).fill(`${OWNER_PASSWORD} 2`);
    await page.getByLabel('Repeat the new password').fill(`${OWNER_PASSWORD} 2`);
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByRole('alert').filter({ hasText: 'The current password is not right' }).waitFor();
    expect(await page.locator('#status').textContent()).toBe('');
    await passwordForm.getByLabel('Current password').fill(`${OWNER_PASSWORD} 1`);
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByRole('status').filter({ hasText: 'The password is changed' }).waitFor();
    const old = await api(f.cabinet, '/cabinet/v1/sessions', { body: { email: f.email, password: OWNER_PASSWORD } });
    expect(old.status).toBe(401);
    expect(f.problems).toEqual([]);
  }, 60_000);
});
