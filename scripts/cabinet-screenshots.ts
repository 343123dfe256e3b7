/**
 * The screenshots of docs/cabinet.md, taken from a real demo instance in headless Chromium:
 *   node --import tsx scripts/cabinet-screenshots.ts [--out docs/cabinet] [--width 1200] [--dark]
 * The demo's invoice is paid and settles, a payout is requested, approved and confirmed, a few
 * more invoices wait, then the owner signs in and each main view is saved as a PNG. Needs
 * /usr/bin/chromium (apt-get install -y chromium).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { systemClock } from '../src/clock.js';
import { startDemo } from '../src/demo/index.js';
import { approvePayout } from '../src/payouts/operator.js';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'docs/cabinet' },
    width: { type: 'string', default: '1200' },
    dark: { type: 'boolean', default: false },
  },
});
const out = path.resolve(values.out as string);
mkdirSync(out, { recursive: true });

const demo = await startDemo({ port: 0, cabinetPort: 0, blockTimeMs: 300, logLevel: 'silent' });
const { info } = demo;
const v1 = async (method: string, route: string, body?: unknown) => {
  const res = await fetch(`${info.api_url}${route}`, {
    method,
    headers: { 'x-api-key': info.api_key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await res.json()) as Record<string, unknown>;
};
const until = async (route: string, done: (r: Record<string, unknown>) => boolean) => {
  for (let i = 0; i < 600; i++) {
    if (done(await v1('GET', route))) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${route} did not get there`);
};

try {
  // A story to show: a settled invoice, a confirmed payout, invoices still open.
  demo.devnet.control.pay({ to: info.invoice.address, asset: 'USDT_TRON', amount: 12_500_000n });
  await until(`/invoices/${info.invoice.invoice_id}`, (r) => r.status === 'settled');
  const payout = await v1('POST', '/payouts', {
    reference: 'supplier-0042',
    asset: 'USDT_TRON',
    to_address: info.payout_address,
    amount: '25',
  });
  await approvePayout(demo.app.services.db, systemClock, 'operator', String(payout.payout_id));
  demo.app.workers?.wake('payouts');
  await until(`/payouts/${String(payout.payout_id)}`, (r) => r.status === 'confirmed');
  for (const [order, amount] of [
    ['order-1001', '49.9'],
    ['order-1002', '120'],
    ['order-1003', '7.25'],
  ])
    await v1('POST', '/invoices', { order_id: order, asset: 'USDT_TRON', amount, expires_in: 3600 });

  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({
      viewport: { width: Number(values.width), height: 760 },
      colorScheme: values.dark ? 'dark' : 'light',
    });
    const shot = async (name: string) => {
      // The status toast comes and goes; the pictures show the page itself.
      await page.evaluate("document.getElementById('status').textContent = ''");
      await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
      console.log(`wrote ${path.relative(process.cwd(), path.join(out, `${name}.png`))}`);
    };
    const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
    const base = `${info.cabinet.url}/#/m/${info.merchant_id}`;

    await page.goto(info.cabinet.url);
    await heading('Sign in');
    await page.getByLabel('Email').fill(info.cabinet.email);
    await shot('sign-in');
    await page.getByLabel('Password', { exact: true }).fill(info.cabinet.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Demo shop');
    await shot('dashboard');
    for (const [hash, title, name] of [
      ['/invoices', 'Invoices', 'invoices'],
      [`/invoices/${info.invoice.invoice_id}`, 'Invoice', 'invoice'],
      ['/payouts', 'Payouts', 'payouts'],
      [`/payouts/${String(payout.payout_id)}`, 'Payout', 'payout'],
      ['/keys', 'API keys', 'keys'],
      ['/deliveries', 'Webhook deliveries', 'deliveries'],
      ['/settings', 'Settings', 'settings'],
    ] as const) {
      await page.goto(`${base}${hash}`);
      await heading(title);
      await shot(name);
    }
    // A refund on the paid invoice: the form, its confirmation, then the refunds list; the Team.
    await page.goto(`${base}/invoices/${info.invoice.invoice_id}`);
    await heading('Invoice');
    const refund = page.getByRole('form', { name: 'Refund' });
    await refund.getByLabel('Amount').fill('2.5');
    await refund.getByLabel(/Reason/).fill('One item was out of stock');
    await refund.getByRole('button', { name: 'Refund…' }).click();
    await page.getByRole('alertdialog').waitFor();
    await shot('refund-confirm');
    await page.getByRole('button', { name: /^Send / }).click();
    await refund.getByText(/created/).waitFor();
    await shot('refund-created');
    await page.goto(`${base}/refunds`);
    await heading('Refunds');
    await shot('refunds');
    await page.goto(`${base}/members`);
    await heading('Team');
    await shot('team');
    await page.goto(`${info.cabinet.url}/#/account`);
    await heading('Account');
    await shot('account');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await heading('Webhook deliveries');
    await page.getByRole('link', { name: /^evt_/ }).first().click();
    await heading('Webhook delivery');
    await shot('delivery');
  } finally {
    await browser.close();
  }
} finally {
  await demo.stop();
}
