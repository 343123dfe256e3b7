/**
 * The receipt, the receipt email form and a refund's claim page in headless Chromium, against the
 * real app, its chain watcher and the devnet, with a Spanish browser: the customer leaves an email
 * (a wrong one is refused in words, a right one is saved and said so), pays, follows the paid
 * page's link to the receipt (order, amount, transaction; printable), then opens a refund's claim
 * link: the amount and token, an address that is not TRON's and one of the gateway's own refused
 * in words, a good one taken and the refund on its way; a cancelled refund and a sent one say so.
 * axe-core finds no violation at 360 and 1280 px, light and dark, and nothing is wider than a
 * 360 px phone. Skips only when /usr/bin/chromium is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireMerchant } from '../../src/merchants/service.js';
import { pageDeps } from '../../src/pay/server.js';
import { createPageInvoice } from '../../src/pay/service.js';
import { cancelRefund, createRefund, refundDeps } from '../../src/refunds/service.js';
import { newAddress } from '../payouts/fixture.js';
import { startChainApp, type ChainTestApp } from '../watcher/fixture.js';
import { toolPresent } from '../helpers/tools.js';

const CHROMIUM = '/usr/bin/chromium';
const present = toolPresent('Chromium', existsSync(CHROMIUM), 'apt-get install -y chromium');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let t: ChainTestApp;
let browser: Browser;
let page: Page;
let shop: { id: string; key: string };
const problems: string[] = [];

async function violations(): Promise<string[]> {
  await page.evaluate(AXE);
  const found = (await page.evaluate('axe.run(document).then((r) => r.violations)')) as {
    id: string;
    help: string;
    nodes: { target: string[] }[];
  }[];
  return found.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** No violation at 360 and 1280 px, light and dark; at 360 px nothing scrolls sideways. */
async function axeEverywhere(view: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const)
    for (const width of [360, 1280]) {
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize({ width, height: 800 });
      expect(await violations(), `${view} at ${width} px, ${colorScheme}`).toEqual([]);
      if (width === 360)
        expect(
          await page.evaluate('document.documentElement.scrollWidth'),
          `${view}: wider than 360 px`,
        ).toBeLessThanOrEqual(360);
    }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 360, height: 800 });
}

describe.skipIf(!present)('the receipt, the email form and the claim page in Chromium, in Spanish', () => {
  beforeAll(async () => {
    t = await startChainApp();
    shop = await t.shop({ confirmations: 2 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const context = await browser.newContext({ locale: 'es-ES', viewport: { width: 360, height: 800 } });
    page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  let invoiceId = '';
  let depositAddress = '';

  it('saves the receipt email, refusing a wrong one in words, and links the paid page to the receipt', async () => {
    const s = t.app.services;
    const { invoice } = await createPageInvoice(
      pageDeps(s),
      await requireMerchant(s.db, shop.id),
      { order_id: 'pedido-7', price: '12.5', expires_in: 3600, description: 'Dos bolsas de café' },
      'test',
    );
    invoiceId = invoice.invoice_id;
    await page.goto(invoice.checkout_url);
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    await page.getByRole('button', { name: /USDT/ }).click();
    await page.locator('#pay-status').filter({ hasText: 'Esperando su pago' }).waitFor();
    depositAddress = (await page.locator('#pay-address').textContent()) as string;

    const field = page.getByLabel('Correo electrónico');
    await field.fill('no es un correo');
    await page.getByRole('button', { name: 'Guardar' }).click();
    await page.getByText('Esta dirección de correo no parece correcta').waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await s.db.selectFrom('receipt_emails').selectAll().where('invoice_id', '=', invoiceId).execute()).toEqual(
      [],
    );

    await field.fill('cliente@example.com');
    await page.getByRole('button', { name: 'Guardar' }).click();
    await page.getByText('Guardado. El recibo se enviará a cliente@example.com.').waitFor();
    const stored = await s.db.selectFrom('receipt_emails').selectAll().where('invoice_id', '=', invoiceId).execute();
    expect(stored.map((r) => [r.email, r.language])).toEqual([['cliente@example.com', 'es']]);
    await axeEverywhere('the email saved');

    await t.pay(depositAddress, '12.5');
    await t.mine(2);
    await page.locator('#pay-status').filter({ hasText: 'Pagado' }).waitFor({ timeout: 20_000 });
    await page.getByRole('link', { name: 'Ver e imprimir el recibo' }).click();
    await page.waitForURL(`**/pay/${invoiceId}/receipt`);
    expect(problems).toEqual([]);
  });

  it('shows the receipt: merchant, order, price, amount paid and the transaction, printable', async () => {
    await page.getByRole('heading', { level: 1, name: 'Recibo' }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    await page.getByText('pedido-7').waitFor();
    await page.getByText('Dos bolsas de café').waitFor();
    // Spanish numbers: a decimal comma.
    expect(await page.locator('#receipt-amount').textContent()).toMatch(/^12,5 USDT/);
    expect(await page.getByText('12,50 US$').count()).toBeGreaterThan(0);
    expect(await page.locator('.transactions li').count()).toBe(1);
    // The devnet has no explorer: the transaction is named, not linked.
    expect(await page.locator('.transactions a').count()).toBe(0);
    await page.getByRole('button', { name: 'Imprimir' }).waitFor();
    await axeEverywhere('the receipt');
    expect(problems).toEqual([]);
  });

  it('takes the refund address on the claim link, refusing a wrong one and the gateway’s own in words', async () => {
    await t.mine(20);
    const s = t.app.services;
    const refund = await createRefund(refundDeps(s), shop.id, invoiceId, { amount: '2.5' }, 'test');
    await page.goto(refund.claim_url);
    await page.getByRole('heading', { level: 1, name: /Reembolso: 2,5 USDT/ }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    await page.getByText('pedido-7').waitFor();
    await axeEverywhere('the claim form');

    const field = page.getByLabel('Su dirección TRON');
    const send = page.getByRole('button', { name: 'Enviar el reembolso a esta dirección' });
    await field.fill('0x12345');
    await send.click();
    await page.getByText('Esta no es una dirección TRON.').waitFor();
    await field.fill(depositAddress);
    await send.click();
    await page.getByText('Esta dirección pertenece al propio servicio de pagos.').waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await axeEverywhere('an address refused');

    const mine = newAddress();
    await field.fill(mine);
    await send.click();
    await page
      .locator('#refund-status')
      .filter({ hasText: 'Dirección recibida: el reembolso está en camino' })
      .waitFor();
    await page.getByText(mine).waitFor();
    await axeEverywhere('the refund on its way');
    // Reloaded, the claim page shows the state, not the form.
    await page.reload();
    await page.locator('#refund-status').filter({ hasText: 'en camino' }).waitFor();
    expect(await page.getByLabel('Su dirección TRON').count()).toBe(0);

    // Sent: the payout's transaction, as the payout worker records it once confirmed.
    const tx = 'ab'.repeat(32);
    const row = await s.db
      .selectFrom('refunds')
      .select('payout_id')
      .where('id', '=', refund.refund_id)
      .executeTakeFirstOrThrow();
    await s.db
      .updateTable('payouts')
      .set({ tx_hash: tx })
      .where('id', '=', row.payout_id as string)
      .execute();
    await s.db.updateTable('refunds').set({ status: 'sent' }).where('id', '=', refund.refund_id).execute();
    await page.reload();
    await page.locator('#refund-status').filter({ hasText: 'Reembolso enviado' }).waitFor();
    await page.getByText(tx).waitFor();
    await axeEverywhere('the refund sent');
    expect(problems).toEqual([]);
  });

  it('says a cancelled refund can no longer be claimed', async () => {
    const s = t.app.services;
    const refund = await createRefund(refundDeps(s), shop.id, invoiceId, { amount: '1' }, 'test');
    await page.goto(refund.claim_url);
    await page.getByLabel('Su dirección TRON').fill(newAddress());
    // Cancelled while the customer types: the refusal brings the refund's state in place of the form.
    await cancelRefund(refundDeps(s), refund.refund_id, shop.id, 'test');
    await page.getByRole('button', { name: 'Enviar el reembolso a esta dirección' }).click();
    await page.locator('#refund-status').filter({ hasText: 'Este reembolso se canceló' }).waitFor();
    await page.getByText('Chain shop canceló este reembolso').waitFor();
    expect(await page.getByLabel('Su dirección TRON').count()).toBe(0);
    await axeEverywhere('a cancelled refund');
    expect(problems).toEqual([]);
  });
});
