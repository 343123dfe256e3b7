/**
 * The tour's page invoice: the customer opens the page link the demo printed and the tour does
 * what the customer's browser does there, through the same routes of the payment listener: the
 * page is served, its view offers the tokens for the dollar price, USDT is chosen, the amount the
 * page shows is paid to the address it shows on the devnet, and the view follows the invoice until
 * it is settled.
 */
import { parseAmount } from '../money.js';
import type { RunningDemo } from './index.js';

type Json = Record<string, unknown>;

const STEP_TIMEOUT_MS = 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function payThroughPage(
  demo: RunningDemo,
  say: (line: string) => void,
  record: (step: string, ok: boolean, detail: string) => boolean,
  at: () => string,
): Promise<boolean> {
  const { page } = demo.info;
  const route = page.checkout_url.replace('/pay/', '/pay/v1/invoices/');
  const call = async (method: string, url: string, body?: Json) => {
    const res = await fetch(url, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  say(`${at()} The customer opens the page link ${page.checkout_url} (${page.price} USD)`);

  const html = await fetch(page.checkout_url);
  const served = html.status === 200 && (html.headers.get('content-type') ?? '').startsWith('text/html');
  const view = (await call('GET', route)).body;
  const offered = (view.offered as { asset: string; amount: string }[] | undefined) ?? [];
  if (
    !record(
      'payment page',
      served && offered.length > 0,
      `${String(view.merchant_name)} asks ${String(view.price)} ${String(view.price_currency)}; the page offers ${offered.map((o) => `${o.amount} ${o.asset}`).join(', ')}`,
    )
  )
    return false;

  const chosen = await call('POST', `${route}/asset`, { asset: 'USDT_TRON' });
  const address = String(chosen.body.address);
  const amount = String(chosen.body.amount_expected);
  if (!record('customer picks USDT', chosen.status === 201, `the page shows: send ${amount} USDT to ${address}`))
    return false;

  const paid = demo.devnet.control.pay({ to: address, asset: 'USDT_TRON', amount: parseAmount(amount, 6) });
  say(`${at()}   the customer's wallet sent it: tx ${paid.txid}`);
  let last = '';
  let now: Json = {};
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    now = (await call('GET', route)).body;
    if (now.status !== last) say(`${at()}   the page shows ${String(now.status)}`);
    last = String(now.status);
    if (now.status === 'settled') break;
    await sleep(200);
  }
  return record(
    'page invoice paid',
    now.status === 'settled',
    `received ${String(now.amount_received)} USDT; the page says paid`,
  );
}
