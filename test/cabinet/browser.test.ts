/**
 * The cabinet's web page in headless Chromium (Debian's `chromium`, driven by playwright-core),
 * against the real app, its chain watcher and the devnet: the setup link, sign-in with the second
 * factor (wrong password and missing code refused), a paid invoice seen settling without a reload,
 * an asset switched off and /v1 refusing it, and axe-core on every main view with zero violations.
 * Skips only when /usr/bin/chromium is absent (`apt-get install -y chromium`; .ci/run installs it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwner, grantOwnerMerchant } from '../../src/owners/service.js';
import { totpCode } from '../../src/owners/totp.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { PAYOUT_STATUSES } from '../../src/payouts/schema.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { api } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { startChainApp, type ChainTestApp } from '../watcher/fixture.js';
import { TOTP_KEY } from './helpers.js';
import { toolPresent } from '../helpers/tools.js';

const CHROMIUM = '/usr/bin/chromium';
const present = toolPresent('Chromium', existsSync(CHROMIUM), 'apt-get install -y chromium');

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PASSWORD = 'a long password for the browser';
const EMAIL = 'owner@shop.example';

let t: ChainTestApp;
let browser: Browser;
let page: Page;
let shop: { id: string; key: string };
let cabinet: string;
let invoiceId: string;
/** Problems the page reported itself (script errors, CSP refusals). */
const problems: string[] = [];

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

async function axe(view: string): Promise<void> {
  expect(await violations(), view).toEqual([]);
}

/** Waits until the detail view's status badge reads `status` (the page redraws it by itself). */
function statusBecomes(status: string) {
  type Doc = { querySelector(selector: string): { textContent: string | null } | null };
  // A function, not text: text would be compiled in the page, which its CSP refuses.
  return page.waitForFunction(
    (s) => (globalThis as unknown as { document: Doc }).document.querySelector('dl.fields .badge')?.textContent === s,
    status,
    { timeout: 15_000 },
  );
}

const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();

async function signIn(password: string, code?: string): Promise<void> {
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Authentication code').fill(code ?? '');
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe.skipIf(!present)('the cabinet page in Chromium', () => {
  beforeAll(async () => {
    t = await startChainApp({ env: { CABINET_TOTP_KEY: TOTP_KEY } });
    shop = await t.shop({ confirmations: 2 });
    cabinet = t.app.cabinetUrl as string;
    const { db, catalog } = t.app.services;
    await setEndpoint(db, t.clock, 'test', shop.id, { url: 'http://127.0.0.1:9/hook', allowPrivate: true });
    await creditMerchant(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', amount: '50', memo: 'test' });
    const to = newAddress();
    await addToWhitelist(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', address: to, delay: '0' });
    const payout = await api(t.url, '/v1/payouts', {
      key: shop.key,
      body: { reference: 'payout-1', asset: 'USDT_TRON', to_address: to, amount: '5' },
    });
    expect(payout.status).toBe(202);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
    page.on('console', (m) => {
      // A refused request (401 before sign-in) is logged by the browser itself; not a fault.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('sets the password with the setup link, enrols TOTP, and refuses a wrong password and a missing code', async () => {
    const created = await createOwner(t.app.services.db, t.clock, 'test', {
      email: EMAIL,
      merchantIds: [shop.id],
      cabinetUrl: cabinet,
    });
    await page.goto(created.setup_url);
    await heading('Choose your password');
    await axe('setup');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await heading('Chain shop');
    expect(page.url()).not.toContain('setup=');

    await page.getByRole('link', { name: 'Account' }).click();
    await heading('Account');
    // The enrolment asks for the current password first; a wrong one is said in words, signed in still.
    const factor = page.getByRole('region', { name: 'Second factor' });
    await factor.getByLabel('Current password').fill('not the password at all');
    await factor.getByRole('button', { name: 'Set up a second factor' }).click();
    await factor.getByRole('alert').filter({ hasText: 'The current password is not right.' }).waitFor();
    await factor.getByLabel('Current password').fill(PASSWORD);
    await factor.getByRole('button', { name: 'Set up a second factor' }).click();
    const secret = (await page.locator('#totp-secret').textContent()) as string;
    // The enrolment runs once: its button is off while it runs, so no second secret is issued.
    expect(await page.locator('#totp-start').isDisabled()).toBe(true);
    await axe('account with the enrolment open');
    await page.getByLabel('Code from the app').fill(totpCode(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Turn the second factor on' }).click();
    await page.getByText('The second factor (TOTP) is on.').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in');
    await axe('sign-in');
    // The checker sees the page: a field without a label is a violation it reports.
    await page.evaluate("document.querySelector('main').append(document.createElement('input'))");
    expect(await violations()).toEqual([expect.stringMatching(/^label: /)]);
    await page.evaluate("document.querySelector('main > input').remove()");
    const refused = page.getByRole('alert');
    await signIn('not the password at all');
    await refused.filter({ hasText: 'Sign-in failed' }).waitFor();
    await signIn(PASSWORD);
    await refused.filter({ hasText: 'Sign-in failed' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    // The code used to turn the factor on is spent: the next time step's code signs in.
    t.clock.advance(30_000);
    await signIn(PASSWORD, totpCode(secret, t.clock.now()));
    await heading('Chain shop');
    await axe('dashboard');
  }, 60_000);

  it('shows a paid invoice settling without a reload', async () => {
    const invoice = await t.create(shop.key, { amount: '12.5' });
    invoiceId = invoice.invoice_id;
    await page.goto(`${cabinet}/#/m/${shop.id}/invoices/${invoiceId}`);
    await heading('Invoice');
    await axe('invoice detail');
    await page.evaluate('window.stillHere = true');
    const status = () => page.locator('dl.fields .badge').first().textContent();
    expect(await status()).toBe('created');

    await t.pay(invoice.address, '12.5');
    await t.mine(1);
    await statusBecomes('seen');
    // The deposit's row: its transaction hash, shortened, with the whole hash on hover.
    const txRow = page.getByRole('row').filter({ has: page.locator('code[title]') });
    await txRow.waitFor();
    await t.mine(22);
    await statusBecomes('settled');
    // The change is said aloud in the live region, not only drawn.
    await page.getByRole('status').filter({ hasText: 'Invoice settled.' }).waitFor();
    expect(await page.evaluate('window.stillHere')).toBe(true);
    expect(await txRow.locator('code').first().getAttribute('title')).toMatch(/^[0-9a-f]{64}$/);
    expect(await txRow.textContent()).toMatch(/12\.50 USDT\d+confirmed/);
    expect(
      await page.getByText('Credited to the balance').locator('xpath=following-sibling::dd[1]').textContent(),
    ).toBe('12.50 USDT');

    // The dashboard draws the 30 days received, with the same numbers as a table for screen readers.
    await page.goto(`${cabinet}/#/m/${shop.id}`);
    const chart = page.locator('figure.chart-box').filter({ hasText: 'USDT received per day' });
    await chart.locator('svg.chart').waitFor();
    expect(await chart.locator('svg rect.bar').count()).toBe(30);
    const days = chart.getByRole('table', { name: 'USDT received per day (UTC)' }).locator('tbody tr');
    expect(await days.count()).toBe(30);
    expect(await days.last().textContent()).toMatch(/12\.50 USDT$/);
  }, 60_000);

  it('lists and details pass axe: invoices, payouts, keys, webhooks', async () => {
    const views: Array<[string, string]> = [
      [`#/m/${shop.id}/invoices`, 'Invoices'],
      [`#/m/${shop.id}/invoices?status=settled`, 'Invoices'],
      [`#/m/${shop.id}/payouts`, 'Payouts'],
      [`#/m/${shop.id}/keys`, 'API keys'],
      [`#/m/${shop.id}/deliveries`, 'Webhook deliveries'],
    ];
    for (const [hash, title] of views) {
      await page.goto(`${cabinet}/${hash}`);
      await heading(title);
      await axe(hash);
    }
    await page.getByRole('link', { name: /^evt_/ }).first().click();
    await heading('Webhook delivery');
    await axe('delivery');
    await page.goto(`${cabinet}/#/m/${shop.id}/payouts`);
    await page.getByRole('link', { name: 'payout-1' }).click();
    await heading('Payout');
    expect(await page.locator('dl.fields .badge').first().textContent()).toBe('pending review');
    await axe('payout');
    // The switcher moves to another merchant of the account (granted by the operator meanwhile).
    const other = await t.merchant({ name: 'Second shop' });
    await grantOwnerMerchant(t.app.services.db, t.clock, 'test', EMAIL, other.merchant.merchant_id);
    await page.reload();
    await heading('Payout');
    await page.getByLabel('Merchant', { exact: true }).selectOption({ label: 'Second shop' });
    await page.getByRole('button', { name: 'Switch' }).click();
    await page.waitForURL(new RegExp(`#/m/${other.merchant.merchant_id}/payouts$`));
    await heading('Payouts');
    await page.getByText('no payout matches').waitFor();
    // The payout filter offers the payout statuses, in their order (the build checks the list
    // against the served API document).
    const offered = await page.getByLabel('Status').locator('option').allTextContents();
    expect(offered).toEqual(['any', ...PAYOUT_STATUSES.map((s) => s.replace(/_/g, ' '))]);
    // The filter form puts its choice in the address; the list follows it.
    await page.goto(`${cabinet}/#/m/${shop.id}/invoices`);
    await heading('Invoices');
    await page.getByLabel('Status').selectOption('created');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/status=created/);
    await page.getByText('no invoice matches').waitFor();
  }, 60_000);

  it('turns an asset off, and /v1 refuses invoices in it', async () => {
    await page.goto(`${cabinet}/#/m/${shop.id}/settings`);
    await heading('Settings');
    const usdt = page.getByLabel('Receive USDT_TRON');
    await usdt.click();
    // Switching an asset off is confirmed first: nothing changes until then.
    expect(await usdt.isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Stop receiving USDT_TRON' }).click();
    await page.getByRole('status').filter({ hasText: 'USDT · TRC-20: refused for new invoices' }).waitFor();
    const refused = await api(t.url, '/v1/invoices', {
      key: shop.key,
      body: { order_id: 'after-switch', asset: 'USDT_TRON', amount: '1', expires_in: 600 },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('asset_disabled_by_merchant');
    await page.reload();
    await heading('Settings');
    expect(await page.getByLabel('Receive USDT_TRON').isChecked()).toBe(false);
    await page.getByLabel('Receive USDT_TRON').check();
    await page.getByRole('status').filter({ hasText: 'USDT · TRC-20: received' }).waitFor();
    const accepted = await api(t.url, '/v1/invoices', {
      key: shop.key,
      body: { order_id: 'after-switch', asset: 'USDT_TRON', amount: '1', expires_in: 600 },
    });
    expect(accepted.status).toBe(201);
    expect(problems).toEqual([]);
  }, 60_000);
});
