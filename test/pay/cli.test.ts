/** `paygate invoice create`: the console's page invoice from the CLI, its link, its replay and its refusals. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnvOf } from '../helpers/console.js';
import { runCli } from '../helpers/cli.js';
import { startPayApp, type PayTestApp } from './fixture.js';

let t: PayTestApp;
let merchantId: string;

beforeAll(async () => {
  t = await startPayApp({ env: { PAY_PUBLIC_URL: 'https://checkout.example.com' } });
  merchantId = (await t.merchant({ siteUrl: 'https://shop.example' })).merchant.merchant_id;
});
afterAll(() => t?.close());

const cli = (...args: string[]) =>
  runCli(['invoice', 'create', merchantId, ...args, '--json'], {
    ...cliEnvOf(t),
    PAY_PUBLIC_URL: 'https://checkout.example.com',
  });

describe('paygate invoice create', () => {
  it('creates a page invoice whose link names PAY_PUBLIC_URL, and prints the same one again', async () => {
    const args = ['--price', '19.99', '--order-id', 'cli-1', '--currency', 'USDT_TRON', '--description', 'A logo'];
    const r = await cli(...args);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({
      order_id: 'cli-1',
      price: '19.99',
      currencies: ['USDT_TRON'],
      description: 'A logo',
      status: 'created',
      asset: null,
    });
    expect(r.json.checkout_url).toBe(`https://checkout.example.com/pay/${r.json.invoice_id}`);
    expect(new Date(r.json.expires_at).getTime() - new Date(r.json.created_at).getTime()).toBe(3_600_000);
    const again = await cli(...args);
    expect(again.json).toEqual(r.json);
    const view = await fetch(`${t.pay}/pay/v1/invoices/${r.json.invoice_id}`);
    expect(view.status).toBe(200);
  });

  it('refuses with the codes of the API, and names a malformed flag', async () => {
    const conflict = await cli('--price', '20', '--order-id', 'cli-1');
    expect(conflict.json.error.code).toBe('order_id_conflict');
    const trx = await cli('--price', '5', '--order-id', 'cli-2', '--currency', 'TRX_TRON');
    expect(trx.json.error.code).toBe('asset_not_offered');
    const price = await cli('--price', '1e3', '--order-id', 'cli-3');
    expect(price.json.error).toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('--price') });
    const term = await cli('--price', '5', '--order-id', 'cli-4', '--expires-in', '30s');
    expect(term.json.error).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('--expires-in'),
    });
    const url = await cli('--price', '5', '--order-id', 'cli-5', '--return-url', 'https://evil.example/');
    expect(url.json.error.code).toBe('redirect_url_not_allowed');
    for (const r of [conflict, trx, price, term, url]) expect(r.code).not.toBe(0);
  });
});
