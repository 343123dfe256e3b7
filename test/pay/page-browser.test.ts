/**
 * The payment page in headless Chromium (Debian's `chromium`, driven by playwright-core), against
 * the real app, its chain watcher and the devnet: the customer opens the checkout link, picks USDT,
 * reads the address and the amount from the page, pays them on the devnet and sees the page reach
 * "paid" with the return link; a token chosen elsewhere and a token switched off since are refused
 * in words; an invoice past its term offers the cancel link; the countdown keeps the service's
 * time on a phone whose clock is wrong; polling pauses in a hidden tab and waits out a 429's
 * Retry-After; the amount due (never the original one) is shown and copied once part arrived, the
 * whole amount seen leaves nothing to send, another token and an overpayment are named, a per_user
 * customer's address is called theirs; the page speaks the browser's language and the one picked,
 * remembered; and axe-core finds no violation at 360 and 1280 px wide, light and dark, before and
 * after the choice, part paid, seen in full, paid, overpaid, in Russian and expired.
 * Skips only when /usr/bin/chromium is absent (`apt-get install -y chromium`; .ci/run installs it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMerchantAsset } from '../../src/assets/service.js';
import { requireMerchant, updateMerchantSettings } from '../../src/merchants/service.js';
import { pageDeps } from '../../src/pay/server.js';
import { createPageInvoice } from '../../src/pay/service.js';
import { api } from '../helpers/http.js';
import { startChainApp, type ChainTestApp } from '../watcher/fixture.js';
import { toolPresent } from '../helpers/tools.js';

const CHROMIUM = '/usr/bin/chromium';
const present = toolPresent('Chromium', existsSync(CHROMIUM), 'apt-get install -y chromium');

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const RETURN_URL = 'https://shop.example/thanks';
const CANCEL_URL = 'https://shop.example/cart';

let t: ChainTestApp;
let browser: Browser;
let page: Page;
/** The page the tests share; `page` points at another while one is checked. */
let main: Page;
let shop: { id: string; key: string };
/** Problems the page reported itself (script errors, CSP refusals). */
const problems: string[] = [];

/** A page invoice of the shop, as the cabinet or the console creates one. */
async function pageInvoice(
  orderId: string,
  extra: Record<string, unknown> = {},
): Promise<{ invoice_id: string; checkout_url: string }> {
  const merchant = await requireMerchant(t.app.services.db, shop.id);
  const body = {
    order_id: orderId,
    price: '12.5',
    expires_in: 3600,
    description: 'Two bags of coffee, 250 g',
    return_url: RETURN_URL,
    cancel_url: CANCEL_URL,
    ...extra,
  };
  return (await createPageInvoice(pageDeps(t.app.services), merchant, body, 'test')).invoice;
}

/** axe-core's violations on the page as it is now, one line each. */
async function violations(): Promise<string[]> {
  await page.evaluate(AXE);
  // Page-side code goes in as text: this file is compiled without the DOM's types.
  const found = (await page.evaluate('axe.run(document).then((r) => r.violations)')) as {
    id: string;
    help: string;
    nodes: { target: string[] }[];
  }[];
  return found.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** No violation at 360 and 1280 px, light and dark. */
async function axeEverywhere(view: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const)
    for (const width of [360, 1280]) {
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize({ width, height: 800 });
      expect(await violations(), `${view} at ${width} px, ${colorScheme}`).toEqual([]);
    }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 360, height: 800 });
}

/** The status line the page shows (and announces) once it reads `text`. */
const status = (text: string) => page.locator('#pay-status').filter({ hasText: text }).waitFor({ timeout: 20_000 });

describe.skipIf(!present)('the payment page in Chromium', () => {
  beforeAll(async () => {
    t = await startChainApp();
    // Redirect links must be on the merchant's site.
    const { merchant, key } = await t.merchant({ name: 'Chain shop', siteUrl: 'https://shop.example' });
    await updateMerchantSettings(t.app.services.db, t.clock, 'test', merchant.merchant_id, { confirmations: 2 });
    shop = { id: merchant.merchant_id, key };
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = main = await browser.newPage({ viewport: { width: 360, height: 800 } });
    page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
    page.on('console', (m) => {
      // A refused request (409, 422) is logged by the browser itself; not a fault of the page.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('picks USDT, pays the address and amount it shows, and reaches paid with the return link', async () => {
    const invoice = await pageInvoice('page-1');
    await page.goto(invoice.checkout_url);
    await page.getByRole('heading', { level: 1, name: /\$12\.50/ }).waitFor();
    expect(await page.getByText('Chain shop').first().textContent()).toBe('Chain shop');
    await page.getByText('Two bags of coffee, 250 g').waitFor();
    await axeEverywhere('before the choice');

    await page.getByRole('button', { name: /USDT/ }).click();
    await status('Waiting for your payment');
    // Keyboard and screen-reader users continue at the payment's details.
    expect(await page.evaluate('document.activeElement.id')).toBe('pay-title');
    const address = (await page.locator('#pay-address').textContent()) as string;
    const amount = (await page.locator('#pay-amount').textContent()) as string;
    expect(amount).toBe('12.5');
    expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    await page.getByRole('img', { name: `QR code of the address ${address}` }).waitFor();
    await page.getByRole('timer').waitFor();
    await axeEverywhere('after the choice');

    await page.evaluate('window.stillHere = true');
    await t.pay(address, amount);
    await t.mine(1);
    await status('Payment received: waiting for confirmations');
    await page.getByText('1 confirmation so far').waitFor();
    // The whole amount is on the network: nothing invites a second payment.
    expect(await page.locator('#pay-amount, #pay-address, .qr, button.copy, [role="timer"]').count()).toBe(0);
    await axeEverywhere('seen in full');
    await t.mine(22);
    await status('Paid');
    const back = page.getByRole('link', { name: 'Return to Chain shop' });
    expect(await back.getAttribute('href')).toBe(RETURN_URL);
    // No reload: the page followed the invoice by itself, and announced the change.
    expect(await page.evaluate('window.stillHere')).toBe(true);
    expect(await page.locator('#announcer').textContent()).toBe('Paid');
    await axeEverywhere('paid');
    const v1 = await t.invoice(shop.key, invoice.invoice_id);
    expect(v1.status).toBe('settled');
    expect(v1.address).toBe(address);
    expect(problems).toEqual([]);
  }, 150_000);

  it('asks for and copies only the amount due once part arrived; names another token; says how much was paid too much', async () => {
    const invoice = await pageInvoice('page-7');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(invoice.checkout_url);
    await page.getByRole('button', { name: /USDT/ }).click();
    await status('Waiting for your payment');
    const address = (await page.locator('#pay-address').textContent()) as string;
    await t.pay(address, '5');
    await t.mine(1);
    await status('Part of the payment received');
    await page.getByText('Received 5 USDT of 12.5 USDT. Send the missing 7.5 USDT').waitFor();
    expect(await page.locator('#pay-amount').textContent()).toBe('7.5');
    await page.getByText('Amount due', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Copy the amount' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe('7.5');
    await axeEverywhere('part paid');

    // USDC to the USDT invoice's address: said apart, and the amount due stays.
    await t.pay(address, '3', 'USDC_TRON');
    await t.mine(1);
    await page.getByText('3 USDC arrived at this address.').waitFor();
    await page.getByText('USDC does not pay this invoice: only USDT does. Chain shop sees this transfer').waitFor();
    expect(await page.locator('#pay-amount').textContent()).toBe('7.5');

    // The rest and 2 more.
    await t.pay(address, '9.5');
    await t.mine(22);
    await status('Paid');
    await page.getByText('You paid 2 USDT more than the invoice asked.').waitFor();
    await axeEverywhere('overpaid, another token');
    expect(problems).toEqual([]);
  }, 150_000);

  it('speaks the browser’s language, and the one picked, remembered after a reload', async () => {
    const invoice = await pageInvoice('page-8');
    const phone = await browser.newPage({ viewport: { width: 360, height: 800 }, locale: 'es-MX' });
    try {
      await phone.goto(invoice.checkout_url);
      await phone.getByRole('heading', { level: 2, name: 'Elija el token con el que pagará' }).waitFor();
      expect(await phone.evaluate('document.documentElement.lang')).toBe('es');
      // The price in the language's format, digit for digit.
      await phone.getByRole('heading', { level: 1, name: /12,50\sUS\$/ }).waitFor();
      const cancel = phone.getByRole('link', { name: 'Cancelar y volver a Chain shop' });
      expect(await cancel.getAttribute('href')).toBe(CANCEL_URL);

      await phone.getByLabel('Idioma').selectOption('ru');
      await phone.getByRole('heading', { level: 2, name: 'Выберите токен для оплаты' }).waitFor();
      expect(await phone.evaluate('document.documentElement.lang')).toBe('ru');
      await phone.reload();
      await phone.getByRole('button', { name: /USDT/ }).click();
      await phone.locator('#pay-status').filter({ hasText: 'Ждём ваш платёж' }).waitFor();
      expect(await phone.evaluate('document.documentElement.lang')).toBe('ru');
      await phone.getByRole('button', { name: 'Копировать сумму' }).waitFor();
      page = phone;
      await axeEverywhere('in Russian');
    } finally {
      page = main;
      await phone.close();
    }
  }, 60_000);

  it('says in words that another token was chosen elsewhere, then shows that one', async () => {
    const invoice = await pageInvoice('page-2');
    await page.goto(invoice.checkout_url);
    await page.getByRole('button', { name: /USDT/ }).waitFor();
    // The customer chose USDC in another window meanwhile.
    const elsewhere = await api(t.app.payUrl as string, `/pay/v1/invoices/${invoice.invoice_id}/asset`, {
      body: { asset: 'USDC_TRON' },
    });
    expect(elsewhere.status).toBe(201);
    await page.getByRole('button', { name: /USDT/ }).click();
    await page
      .getByRole('alert')
      .filter({
        hasText: 'A token was already chosen for this invoice (perhaps in another window), and the choice is final.',
      })
      .waitFor();
    await page.getByRole('heading', { level: 2, name: 'Pay with USDC' }).waitFor();
    expect(await page.locator('#pay-address').textContent()).toBe(elsewhere.body.address);
    await axeEverywhere('refused');
  }, 60_000);

  it('says in words that a token switched off since cannot be received', async () => {
    const invoice = await pageInvoice('page-3');
    await page.goto(invoice.checkout_url);
    await page.getByRole('button', { name: /USDD/ }).waitFor();
    const { db, catalog } = t.app.services;
    await setMerchantAsset(db, t.clock, 'test', catalog, shop.id, 'USDD_TRON', false);
    await page.getByRole('button', { name: /USDD/ }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'USDD cannot be received right now. Choose another token.' })
      .waitFor();
    await page.getByRole('button', { name: /USDT/ }).click();
    await status('Waiting for your payment');
  }, 60_000);

  it("counts down by the service's clock when the phone's clock is a quarter of an hour late", async () => {
    const invoice = await pageInvoice('page-5');
    const phone = await browser.newPage({ viewport: { width: 360, height: 800 } });
    try {
      await phone.clock.install();
      await phone.clock.setSystemTime(Date.now() - 15 * 60_000);
      await phone.goto(invoice.checkout_url);
      const timer = phone.getByRole('timer');
      await timer.waitFor();
      // The time left to choose: an hour's term less five minutes to pay (give or take the minutes
      // the test clock went ahead), not an hour and ten minutes.
      expect(await timer.textContent()).toMatch(/^5\d:\d\d$/);
    } finally {
      await phone.close();
    }
  }, 60_000);

  it('stops asking for the invoice while the tab is hidden, and asks at once when it is shown again', async () => {
    const invoice = await pageInvoice('page-6');
    const chosen = await api(t.app.payUrl as string, `/pay/v1/invoices/${invoice.invoice_id}/asset`, {
      body: { asset: 'USDT_TRON' },
    });
    expect(chosen.status).toBe(201);
    const phone = await browser.newPage({ viewport: { width: 360, height: 800 } });
    try {
      // The page's timers run on a clock the test moves: minutes pass without waiting for them.
      await phone.clock.install();
      const reads: string[] = [];
      phone.on('request', (r) => {
        if (r.url().includes('/pay/v1/invoices/')) reads.push(r.url());
      });
      await phone.goto(invoice.checkout_url);
      await phone.locator('#pay-status').filter({ hasText: 'Waiting for your payment' }).waitFor();
      const polled = phone.waitForRequest((r) => r.url().includes('/pay/v1/invoices/'));
      await phone.clock.runFor(5_000);
      await polled;

      const visibility = (hidden: boolean) =>
        phone.evaluate(
          `Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });` +
            `Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${hidden ? 'hidden' : 'visible'}' });` +
            `document.dispatchEvent(new Event('visibilitychange'))`,
        );
      await visibility(true);
      reads.length = 0;
      await phone.clock.runFor(10 * 60_000);
      await phone.waitForTimeout(200);
      expect(reads).toEqual([]);
      const back = phone.waitForRequest((r) => r.url().includes('/pay/v1/invoices/'));
      await visibility(false);
      await back;
    } finally {
      await phone.close();
    }
  }, 60_000);

  it('takes the choice by keyboard alone, and offers the cancel link once the term is over', async () => {
    // Ten minutes: the choice stays open for five of them (the other five are left to pay).
    const invoice = await pageInvoice('page-4', { expires_in: 600 });
    await page.goto(invoice.checkout_url);
    await page.getByRole('button', { name: /USDT/ }).waitFor();
    // By keyboard alone: the first stop is the language picker, the next the first token's button.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await status('Waiting for your payment');
    t.clock.advance(601_000);
    await t.mine(2);
    await status('This invoice has expired');
    expect(await page.getByRole('link', { name: 'Return to Chain shop' }).getAttribute('href')).toBe(CANCEL_URL);
    await axeEverywhere('expired');
    expect(await page.locator('#announcer').textContent()).toBe('This invoice has expired');
    expect(problems).toEqual([]);
  }, 60_000);

  it("calls a per_user customer's address theirs, never one to stop sending to", async () => {
    const { merchant } = await t.merchant({ name: 'Regular shop', addressMode: 'per_user' });
    const row = await requireMerchant(t.app.services.db, merchant.merchant_id);
    const { invoice } = await createPageInvoice(
      pageDeps(t.app.services),
      row,
      { order_id: 'regular-1', price: '5', expires_in: 600, external_user_id: 'customer-7' },
      'test',
    );
    await page.goto(invoice.checkout_url);
    await page.getByRole('button', { name: /USDT/ }).click();
    await page.getByText('This address is yours at Regular shop: it stays the same for your next payments.').waitFor();
    t.clock.advance(601_000);
    await t.mine(2);
    await status('This invoice has expired');
    await page.getByText('This address stays yours at Regular shop').waitFor();
    expect(await page.getByText('Do not send anything to this address any more.').count()).toBe(0);
  }, 60_000);
});

describe.skipIf(!present)('the payment page under the per-IP limit', () => {
  let limited: ChainTestApp;
  afterAll(async () => limited?.close());

  it('says to wait when the service answers 429, and asks again only after Retry-After', async () => {
    limited = await startChainApp({ env: { API_RATE_LIMIT_PER_IP: '8' } });
    const { merchant } = await limited.merchant({ name: 'Busy shop' });
    const row = await requireMerchant(limited.app.services.db, merchant.merchant_id);
    const { invoice } = await createPageInvoice(
      pageDeps(limited.app.services),
      row,
      { order_id: 'busy-1', price: '5', expires_in: 3600 },
      'test',
    );
    const phone = await chromium
      .launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
      .then((b) => b.newPage({ viewport: { width: 360, height: 800 } }));
    try {
      await phone.clock.install();
      const reads: string[] = [];
      phone.on('request', (r) => {
        if (r.url().includes('/pay/v1/invoices/')) reads.push(r.url());
      });
      await phone.goto(invoice.checkout_url);
      await phone.getByRole('button', { name: /USDT/ }).waitFor();
      const refusal = phone.getByRole('alert').filter({ hasText: 'Too many requests from your network.' });
      for (let i = 0; i < 12 && !(await refusal.isVisible()); i++) {
        await phone.clock.runFor(15_000);
        await phone.waitForTimeout(100);
      }
      const text = (await refusal.textContent()) as string;
      const wait = Number(/tries again in (\d+) seconds/.exec(text)?.[1]);
      expect(wait).toBeGreaterThan(15);
      // What the page showed stays: the choice is still there while it waits.
      expect(await phone.getByRole('button', { name: /USDT/ }).isVisible()).toBe(true);
      reads.length = 0;
      await phone.clock.runFor((wait - 1) * 1000);
      await phone.waitForTimeout(200);
      expect(reads).toEqual([]);
    } finally {
      await phone.context().browser()?.close();
    }
  }, 90_000);
});
