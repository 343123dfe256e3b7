/**
 * The cabinet page's faults owners met, each proved gone in Chromium: no "null" under a list
 * without pages; a bad filter keeps the form and says what to fix; a one-day report downloads;
 * disabling the merchant is confirmed by its name; polling pauses in a hidden tab and backs off on
 * 429; retrying webhook deliveries warn; a rejected payout says so; a deep link survives the
 * sign-in; the phone layout fits the screen and the API document is not downloaded.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTx } from '../../src/db/database.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { rejectPayout } from '../../src/payouts/operator.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { api } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { chromiumPresent, heading, signIn, startBrowserFixture, type BrowserFixture } from './browser-fixture.js';

let f: BrowserFixture;
let page: Page;
let rejectedId: string;
let invoiceId: string;

const mainText = () => page.locator('main').innerText();

describe.skipIf(!chromiumPresent)('the cabinet page, its broken items fixed', () => {
  beforeAll(async () => {
    f = await startBrowserFixture();
    const { db, catalog } = f.t.app.services;
    const { t, shop } = f;
    await setEndpoint(db, t.clock, 'test', shop.id, { url: 'http://127.0.0.1:9/hook', allowPrivate: true });
    await creditMerchant(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', amount: '50', memo: 'test' });
    const to = newAddress();
    await addToWhitelist(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', address: to, delay: '0' });
    for (const reference of ['payout-1', 'payout-2']) {
      const r = await api(t.url, '/v1/payouts', {
        key: shop.key,
        body: { reference, asset: 'USDT_TRON', to_address: to, amount: '5' },
      });
      expect(r.status).toBe(202);
      rejectedId = r.body.payout_id;
    }
    await rejectPayout(db, t.clock, 'operator', rejectedId, 'the supplier is unknown to us');
    invoiceId = (await t.create(shop.key, { amount: '3' })).invoice_id;
    page = await f.page();
  }, 60_000);

  afterAll(async () => f?.close());

  it('8: signing in from a deep link lands on the link', async () => {
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/payouts`);
    await heading(page, 'Sign in');
    await signIn(page, f.email);
    await heading(page, 'Payouts');
    expect(page.url()).toMatch(new RegExp(`#/m/${f.shop.id}/payouts$`));
  }, 60_000);

  it('1: a list without pages ends without the word "null"', async () => {
    const lists: Array<[string, string]> = [
      ['payouts', 'Payouts'],
      ['invoices?status=underpaid', 'Invoices'],
      ['deliveries', 'Webhook deliveries'],
    ];
    for (const [hash, title] of lists) {
      await page.goto(`${f.cabinet}/#/m/${f.shop.id}/${hash}`);
      await heading(page, title);
      expect(await mainText(), hash).not.toMatch(/\bnull\b/);
    }
  }, 60_000);

  it('2: a bad filter keeps the form and says what to fix; an unknown invoice is not found', async () => {
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices?from=2026-05-10&to=2026-05-01`);
    await heading(page, 'Invoices');
    await page.getByRole('alert').filter({ hasText: 'From is after To' }).waitFor();
    expect(await page.getByRole('search').isVisible()).toBe(true);
    // The same from the form itself: the address stays, the form says why.
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices`);
    // The list itself, not the previous view's form under the same heading.
    await page.getByRole('region', { name: 'Invoices, newest first' }).waitFor();
    await page.getByLabel('From (UTC day)').fill('2026-06-02');
    await page.getByLabel('To (UTC day, included)').fill('2026-06-01');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('alert').filter({ hasText: 'From is after To' }).waitFor();
    expect(page.url()).toMatch(/\/invoices$/);
    // A malformed page link in the address: the form stays, the refusal is said.
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices?cursor=not-a-cursor`);
    await heading(page, 'Invoices');
    await page.getByRole('alert').filter({ hasText: 'refused' }).waitFor();
    expect(await page.getByRole('search').isVisible()).toBe(true);
    for (const id of ['not-an-id', '0190f0d2-0000-7000-8000-000000000000']) {
      await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices/${id}`);
      await heading(page, 'Not found');
    }
  }, 60_000);

  it('3: a report of one day (From = To) downloads, and a refusal is said', async () => {
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/reports`);
    await heading(page, 'Reports');
    const today = f.t.clock.now().toISOString().slice(0, 10);
    await page.getByLabel('From (UTC day)').fill(today);
    await page.getByLabel('To (UTC day, included)').fill(today);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download' }).click();
    const file = await (await download).path();
    const rows = readFileSync(file, 'utf8').trim().split('\n');
    // The header and the invoice created today.
    expect(rows.length).toBe(2);
    await page.getByLabel('From (UTC day)').fill('2026-06-02');
    await page.getByLabel('To (UTC day, included)').fill('2026-06-01');
    await page.getByRole('button', { name: 'Download' }).click();
    await page.getByRole('alert').filter({ hasText: 'From is after To' }).waitFor();
  }, 60_000);

  it('4: disabling the merchant asks for its name first', async () => {
    const v1 = () => api(f.t.url, `/v1/invoices/${invoiceId}`, { key: f.shop.key });
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/settings`);
    await heading(page, 'Settings');
    await page.getByRole('button', { name: 'Disable the merchant' }).click();
    expect((await v1()).status).toBe(200);
    const name = page.getByLabel(/Type the merchant's name/);
    await name.fill('not the name');
    await page.getByRole('button', { name: 'Disable it now' }).click();
    await page.getByRole('alert').filter({ hasText: "That is not the merchant's name" }).waitFor();
    expect((await v1()).status).toBe(200);
    await name.fill('Chain shop');
    await page.getByRole('button', { name: 'Disable it now' }).click();
    await page.getByRole('status').filter({ hasText: 'The merchant is disabled' }).waitFor();
    expect((await v1()).status).toBe(403);
    await page.getByRole('button', { name: 'Enable the merchant (your switch)' }).click();
    await page.getByRole('status').filter({ hasText: 'enabled again' }).waitFor();
    expect((await v1()).status).toBe(200);
  }, 60_000);

  it('6: deliveries still retrying warn on the dashboard', async () => {
    await writeTx(f.t.app.services.db, (trx) =>
      trx
        .updateTable('webhook_deliveries')
        .set({ attempts: 4, last_error: 'connect ECONNREFUSED 127.0.0.1:9' })
        .where('merchant_id', '=', f.shop.id)
        .where('status', '=', 'pending')
        .execute(),
    );
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}`);
    await heading(page, 'Chain shop');
    await page.getByText(/refusing deliveries: \d+\+? still retrying/).waitFor();
    expect(await mainText()).not.toMatch(/Failed webhook deliveries: none/);
  }, 60_000);

  it('7: a rejected payout says it was rejected, not "not sent yet"', async () => {
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/payouts/${rejectedId}`);
    await heading(page, 'Payout');
    const tx = page.getByText('Transaction', { exact: true }).locator('xpath=following-sibling::dd[1]');
    expect(await tx.textContent()).toMatch(/rejected/);
    expect(await mainText()).not.toContain('not sent yet');
  }, 60_000);

  it('5: polling pauses in a hidden tab and waits after a 429', async () => {
    const p = await f.page();
    await p.clock.install();
    const asked: string[] = [];
    p.on('request', (r) => {
      if (r.url().includes('/balances')) asked.push(r.url());
    });
    await p.goto(`${f.cabinet}/#/m/${f.shop.id}`);
    await heading(p, 'Sign in');
    await signIn(p, f.email);
    await heading(p, 'Chain shop');
    await p.getByText(/last updated/).waitFor();
    const answered = () => p.waitForResponse((r) => r.url().includes('/balances'));
    let next = answered();
    await p.clock.runFor(2_100);
    await next;
    // Hidden: no request, however long.
    await p.evaluate(`Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'))`);
    await p.clock.runFor(2_100);
    await p.getByText(/Paused while this tab is hidden/).waitFor();
    asked.length = 0;
    await p.clock.runFor(60_000);
    await p.evaluate('new Promise((r) => requestAnimationFrame(() => r(null)))');
    expect(asked).toEqual([]);
    // Visible again: at once.
    next = answered();
    await p.evaluate(`Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange'))`);
    await next;
    // A 429 with Retry-After: 30: nothing for the next 20 s, then it asks again.
    await p.route('**/balances', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'retry-after': '30', 'content-type': 'application/json' },
        body: JSON.stringify({ error: { code: 'rate_limited', message: 'Too many requests' } }),
      }),
    );
    next = answered();
    await p.clock.runFor(2_100);
    await next;
    await p.getByText(/Too many requests for now: next try in 30 s/).waitFor();
    asked.length = 0;
    await p.clock.runFor(20_000);
    await p.evaluate('new Promise((r) => requestAnimationFrame(() => r(null)))');
    expect(asked).toEqual([]);
    await p.unroute('**/balances');
    next = answered();
    await p.clock.runFor(11_000);
    await next;
    await p.context().close();
  }, 60_000);

  it('9: at 390 px the page fits, the sign-in has no empty bar, and the API document is not fetched', async () => {
    const p = await f.page({ viewport: { width: 390, height: 800 } });
    const documents: string[] = [];
    p.on('request', (r) => {
      if (r.url().includes('openapi.json')) documents.push(r.url());
    });
    await p.goto(`${f.cabinet}/`);
    await heading(p, 'Sign in');
    expect(await p.locator('nav#nav').boundingBox()).toBeNull();
    await signIn(p, f.email);
    await heading(p, 'Chain shop');
    const fits = async () => expect(await p.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await fits();
    const signOut = await p.getByRole('button', { name: 'Sign out' }).boundingBox();
    expect(signOut && signOut.x + signOut.width).toBeLessThanOrEqual(390);
    await p.goto(`${f.cabinet}/#/m/${f.shop.id}/payouts/${rejectedId}`);
    await heading(p, 'Payout');
    await fits();
    const idBox = await p.getByText(rejectedId, { exact: true }).boundingBox();
    // The id reads on one or two lines, not a column of 12 characters.
    expect(idBox?.width ?? 0).toBeGreaterThan(250);
    // An announcement never covers a table cell.
    await p.goto(`${f.cabinet}/#/m/${f.shop.id}/payouts`);
    await heading(p, 'Payouts');
    await p.evaluate(`document.getElementById('status').textContent = 'A status change, said aloud'`);
    const overlaps = await p.evaluate(`(() => {
      const s = document.getElementById('status').getBoundingClientRect();
      return [...document.querySelectorAll('td, th')].some((c) => {
        const r = c.getBoundingClientRect();
        return r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom;
      });
    })()`);
    expect(overlaps).toBe(false);
    expect(documents).toEqual([]);
    expect(f.problems).toEqual([]);
    await p.context().close();
  }, 60_000);
});
