/**
 * The payment page's screenshots (README, docs/page-invoices.md), taken from a real demo instance
 * in headless Chromium as a customer's phone shows them (360 px wide):
 *   node --import tsx scripts/pay-screenshots.ts [--out docs/images] [--dark] [--width 360] [--lang es]
 * The demo shop sends a page invoice; the customer opens the link (pay-choose), picks USDT
 * (pay-address), pays the shown amount on the demo's devnet and the page says paid (pay-paid);
 * pay-flow is the three side by side. Then the receipt (pay-receipt) and a refund's claim page
 * before and after the address (pay-refund-claim, pay-refund-requested). Needs the built page
 * (`npm run build`) and /usr/bin/chromium.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startDemo } from '../src/demo/index.js';
import { requireMerchant } from '../src/merchants/service.js';
import { parseAmount } from '../src/money.js';
import { pageDeps } from '../src/pay/server.js';
import { getPayView } from '../src/pay/customer.js';
import { createPageInvoice } from '../src/pay/service.js';
import { createRefund, refundDeps } from '../src/refunds/service.js';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'docs/images' },
    dark: { type: 'boolean', default: false },
    width: { type: 'string', default: '360' },
    // The browser's language (Accept-Language), as a customer's phone sends it.
    lang: { type: 'string', default: 'en' },
  },
});
const out = path.resolve(values.out as string);
mkdirSync(out, { recursive: true });
const width = Number(values.width);
// The page's words in the chosen language, to find its controls as a customer reads them.
const catalog = JSON.parse(readFileSync(path.resolve('web/pay/i18n', `${values.lang}.json`), 'utf8')) as Record<
  string,
  string
>;
const say = (key: string) => catalog[key] as string;

const demo = await startDemo({ port: 0, cabinetPort: 0, payPort: 0, blockTimeMs: 300, logLevel: 'silent' });
try {
  const { services } = demo.app;
  const shop = await requireMerchant(services.db, demo.info.merchant_id);
  const { invoice } = await createPageInvoice(
    pageDeps(services),
    shop,
    {
      order_id: 'order-1042',
      price: '24.9',
      expires_in: 3600,
      description: 'Order 1042: two bags of coffee beans, 250 g',
      return_url: 'https://shop.example/thanks',
      cancel_url: 'https://shop.example/cart',
    },
    'operator',
  );

  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({
      viewport: { width, height: 740 },
      colorScheme: values.dark ? 'dark' : 'light',
      locale: values.lang as string,
    });
    const files: string[] = [];
    const shot = async (name: string) => {
      const file = path.join(out, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      files.push(file);
      console.log(`wrote ${path.relative(process.cwd(), file)}`);
    };
    const status = (text: string) => page.locator('#pay-status').filter({ hasText: text }).waitFor({ timeout: 60_000 });

    await page.goto(invoice.checkout_url);
    await page.getByRole('button', { name: /USDT/ }).waitFor();
    await shot('pay-choose');
    await page.getByRole('button', { name: /USDT/ }).click();
    await status(say('status.created'));
    // The focus ring on the heading the page moves to is for keyboards, not for the picture.
    await page.locator('#pay-title').evaluate((e: { blur(): void }) => e.blur());
    await shot('pay-address');
    const address = (await page.locator('#pay-address').textContent()) as string;
    const amount = (await page.locator('#pay-amount').textContent()) as string;
    demo.devnet.control.pay({ to: address, asset: 'USDT_TRON', amount: parseAmount(amount, 6) });
    await status(say('status.paid'));
    await shot('pay-paid');

    // The three side by side: a local page of the three pictures, no server involved.
    const board = path.join(out, 'pay-flow.html');
    const img = (f: string) =>
      `<img src="data:image/png;base64,${readFileSync(f).toString('base64')}" alt="" style="width:${width}px;vertical-align:top;border:1px solid #c8ced6;border-radius:12px;margin:0 12px">`;
    writeFileSync(board, `<body style="margin:0;padding:16px 4px;background:#fff">${files.map(img).join('')}</body>`);
    const composite = await browser.newPage({ viewport: { width: (width + 26) * files.length + 8, height: 400 } });
    await composite.goto(`file://${board}`);
    await composite.screenshot({ path: path.join(out, 'pay-flow.png'), fullPage: true });
    await composite.close();
    rmSync(board);
    console.log(`wrote ${path.relative(process.cwd(), path.join(out, 'pay-flow.png'))}`);

    await page.getByRole('link', { name: say('receipt.link') }).click();
    await page.getByRole('heading', { level: 1, name: say('receipt.title') }).waitFor();
    await shot('pay-receipt');
    // A refund is paid from the settled credit: wait for the payment to be final.
    for (let i = 0; (await getPayView(pageDeps(services), invoice.invoice_id)).status !== 'settled'; i++) {
      if (i > 200) throw new Error('the demo payment did not settle');
      await new Promise((r) => setTimeout(r, 300));
    }
    const refund = await createRefund(
      refundDeps(services),
      shop.id,
      invoice.invoice_id,
      { amount: '4.9', reason: 'One bag was out of stock' },
      'operator',
    );
    await page.goto(refund.claim_url);
    await page.getByLabel(say('refund.address_label')).waitFor();
    await shot('pay-refund-claim');
    await page.getByLabel(say('refund.address_label')).fill('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8');
    await page.getByRole('button', { name: say('refund.submit') }).click();
    await page.locator('#refund-status').waitFor();
    await shot('pay-refund-requested');
  } finally {
    await browser.close();
  }
} finally {
  await demo.stop();
}
