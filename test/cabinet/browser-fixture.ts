/**
 * What the cabinet's browser tests share: the real app with its chain watcher and the devnet, one
 * merchant with an owner account set up through the setup link, and Debian's Chromium driven by
 * playwright-core (the tests skip only when /usr/bin/chromium is absent).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createOwner } from '../../src/owners/service.js';
import { api } from '../helpers/http.js';
import { startChainApp, type ChainTestApp } from '../watcher/fixture.js';
import { TOTP_KEY } from './helpers.js';
import { toolPresent } from '../helpers/tools.js';

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumPresent = toolPresent('Chromium', existsSync(CHROMIUM), 'apt-get install -y chromium');

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const OWNER_PASSWORD = 'a long password for the browser';

export interface BrowserFixture {
  t: ChainTestApp;
  shop: { id: string; key: string };
  cabinet: string;
  email: string;
  browser: Browser;
  /** A new page (its own context, so its own cookie), with its script errors collected. */
  page(opts?: BrowserContextOptions): Promise<Page>;
  /** Script errors and CSP refusals the pages reported. */
  problems: string[];
  close(): Promise<void>;
}

export async function startBrowserFixture(email = 'owner@shop.example'): Promise<BrowserFixture> {
  const t = await startChainApp({ env: { CABINET_TOTP_KEY: TOTP_KEY } });
  const shop = await t.shop({ confirmations: 2 });
  const cabinet = t.app.cabinetUrl as string;
  const created = await createOwner(t.app.services.db, t.clock, 'test', {
    email,
    merchantIds: [shop.id],
    cabinetUrl: cabinet,
  });
  const setup = await api(cabinet, '/cabinet/v1/account/setup', {
    body: { setup_token: created.setup_token, password: OWNER_PASSWORD },
  });
  expect(setup.status).toBe(200);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const problems: string[] = [];
  return {
    t,
    shop,
    cabinet,
    email,
    browser,
    problems,
    async page(opts = {}) {
      const context = await browser.newContext(opts);
      const page = await context.newPage();
      page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
      page.on('console', (m) => {
        // A refused request is logged by the browser itself; not a fault of the page.
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
      });
      return page;
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

export const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

/** Fills the sign-in form the page shows and submits it. */
export async function signIn(page: Page, email: string, password = OWNER_PASSWORD, code = ''): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Authentication code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** axe-core's violations on the page as it is now, one line each. */
export async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  // Page-side code goes in as text: this file is compiled without the DOM's types.
  const found = (await page.evaluate('axe.run(document).then((r) => r.violations)')) as {
    id: string;
    help: string;
    nodes: { target: string[] }[];
  }[];
  return found.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
