/**
 * Two things of the cabinet page an owner meets rarely but must read right, in Chromium over the
 * real API: on a Nile instance the deposit's transaction and addresses link to Nile's Tronscan;
 * and a second factor locked by ten wrong codes is said in words at sign-in, with when to try
 * again, and the next sign-in tells of the wrong codes.
 */
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwner } from '../../src/owners/service.js';
import { totpCode } from '../../src/owners/totp.js';
import { api } from '../helpers/http.js';
import {
  chromiumPresent,
  heading,
  OWNER_PASSWORD,
  signIn,
  startBrowserFixture,
  type BrowserFixture,
} from './browser-fixture.js';

let f: BrowserFixture;
let paid: { invoice_id: string; address: string };
let txid: string;

const NETWORK_META = /<meta name="paygate-network" content="[a-z]*" \/>/;

/**
 * The page's HTML document as an instance with TRON_NETWORK=nile serves it. The devnet cannot pass
 * for Nile (the chain check refuses its genesis block), so the meta the server writes is rewritten
 * here, on the document only; the server's part, writing TRON_NETWORK into the meta, is tested in
 * page-build.test.ts.
 */
async function asNile(page: Page): Promise<void> {
  await page.route(
    (url) => url.origin === new URL(f.cabinet).origin && (url.pathname === '/' || url.pathname === '/index.html'),
    async (route: Route) => {
      const response = await route.fetch();
      const html = await response.text();
      expect(html).toMatch(NETWORK_META);
      await route.fulfill({
        response,
        body: html.replace(NETWORK_META, '<meta name="paygate-network" content="nile" />'),
      });
    },
  );
}

describe.skipIf(!chromiumPresent)('the cabinet page, rare but read right', () => {
  beforeAll(async () => {
    f = await startBrowserFixture();
    paid = await f.t.create(f.shop.key, { order_id: 'order-nile', amount: '7' });
    txid = await f.t.pay(paid.address, '7');
    await f.t.mine(4);
  }, 60_000);

  afterAll(async () => f?.close());

  it("links an invoice's deposit transaction and addresses to Nile's Tronscan on a Nile instance", async () => {
    const page = await f.page();
    await asNile(page);
    await page.goto(`${f.cabinet}/#/m/${f.shop.id}/invoices/${paid.invoice_id}`);
    await heading(page, 'Sign in');
    await signIn(page, f.email);
    await heading(page, 'Invoice');
    const record = await page.request.get(`${f.cabinet}/cabinet/v1/merchants/${f.shop.id}/invoices/${paid.invoice_id}`);
    const deposit = (await record.json()).deposits[0] as { tx_hash: string; from_address: string };
    expect(deposit.tx_hash).toBe(txid);

    const links: Array<[string, string]> = [
      [`transaction ${deposit.tx_hash} on Tronscan`, `https://nile.tronscan.org/#/transaction/${deposit.tx_hash}`],
      [`address ${deposit.from_address} on Tronscan`, `https://nile.tronscan.org/#/address/${deposit.from_address}`],
      [`address ${paid.address} on Tronscan`, `https://nile.tronscan.org/#/address/${paid.address}`],
    ];
    for (const [name, href] of links) {
      const link = page.getByRole('link', { name, exact: true });
      expect(await link.getAttribute('href'), name).toBe(href);
      expect((await link.getAttribute('rel'))?.split(' '), name).toContain('noopener');
      expect(await link.getAttribute('target'), name).toBe('_blank');
    }
    // Nothing links to mainnet's Tronscan.
    expect(await page.locator('main a[href^="https://tronscan.org"]').count()).toBe(0);
    expect(f.problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('says the second factor is locked and when to retry, keeps the form; the next sign-in tells of the wrong codes', async () => {
    const { t } = f;
    const email = 'locked@shop.example';
    const created = await createOwner(t.app.services.db, t.clock, 'test', {
      email,
      merchantIds: [f.shop.id],
      cabinetUrl: f.cabinet,
    });
    const setup = await api(f.cabinet, '/cabinet/v1/account/setup', {
      body: { setup_token: created.setup_token, password: OWNER_PASSWORD },
    });
    expect(setup.status).toBe(200);
    const session = await api(f.cabinet, '/cabinet/v1/sessions', { body: { email, password: OWNER_PASSWORD } });
    expect(session.status, session.text).toBe(201);
    const bearer = { authorization: `Bearer ${session.body.token}` };
    const enrol = await api(f.cabinet, '/cabinet/v1/account/totp', {
      body: { current_password: OWNER_PASSWORD },
      headers: bearer,
    });
    expect(enrol.status, enrol.text).toBe(200);
    const secret = enrol.body.secret as string;
    const confirmed = await api(f.cabinet, '/cabinet/v1/account/totp/confirm', {
      headers: bearer,
      body: { code: totpCode(secret, t.clock.now()) },
    });
    expect(confirmed.status, confirmed.text).toBe(200);

    // A new minute of the sign-in limits, then ten wrong codes with the right password.
    t.clock.advance(60_000);
    const near = [-30_000, 0, 30_000].map((d) => totpCode(secret, new Date(t.clock.now().getTime() + d)));
    const wrong = ['000000', '111111', '222222'].find((c) => !near.includes(c)) as string;
    for (let i = 0; i < 10; i++) {
      const r = await api(f.cabinet, '/cabinet/v1/sessions', {
        body: { email, password: OWNER_PASSWORD, totp: wrong },
      });
      expect(r.status, r.text).toBe(401);
    }
    // A minute of the 15-minute lock goes by (and the limits' window with it): 14 minutes are left.
    t.clock.advance(60_000);

    const page = await f.page();
    await page.goto(`${f.cabinet}/`);
    await heading(page, 'Sign in');
    await signIn(page, email, OWNER_PASSWORD, totpCode(secret, t.clock.now()));
    const alert = page.getByRole('alert').filter({ hasText: 'the second factor is locked' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'Too many wrong codes: the second factor is locked; try again in 14 minutes, or ask the operator to reset it.',
    );
    // The form stays, filled, to try again later.
    await heading(page, 'Sign in');
    expect(await page.getByLabel('Email').inputValue()).toBe(email);
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe(OWNER_PASSWORD);

    // Once the lock is over, the same form signs in with a fresh code and tells of the wrong ones.
    t.clock.advance(14 * 60_000);
    await page.getByLabel('Authentication code').fill(totpCode(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Chain shop');
    await page
      .getByRole('status')
      .filter({
        hasText:
          '10 wrong authentication codes were given with your password since you last signed in: change the password.',
      })
      .waitFor();
    expect(f.problems).toEqual([]);
    await page.context().close();
  }, 60_000);
});
