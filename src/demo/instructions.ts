/** What `paygate demo` prints for a human: everything needed to try every route with curl. */
import type { DemoInfo } from './index.js';

export function demoInstructions(i: DemoInfo): string {
  const [shop, games] = i.merchants;
  const post = (key: string, route: string, body: string) =>
    `  curl -s -X POST ${i.api_url}/${route} -H "X-Api-Key: ${key}" -H 'Content-Type: application/json' \\\n       -d '${body}'`;
  return [
    'paygate demo is running (throwaway: everything is deleted on Ctrl-C).',
    '',
    `  API          ${i.api_url}`,
    `  merchants    ${shop?.name} (per_invoice)  ${shop?.merchant_id}  key ${shop?.api_key}`,
    `               ${games?.name} (per_user)    ${games?.merchant_id}  key ${games?.api_key}`,
    `  TRON devnet  ${i.devnet_url} (simulated node; hot wallet ${i.hot_wallet})`,
    `  payouts to   ${i.payout_address} (whitelisted for USDT_TRON; the shop has a 100 USDT opening balance)`,
    '  webhooks     every event of both merchants is verified and printed below as it arrives',
    `  cabinet      ${i.cabinet.url}  the owners' page: sign in as ${i.cabinet.email} / ${i.cabinet.password} (shown once)`,
    `  page link    ${i.page.checkout_url}  a ${i.page.price} USD invoice of the shop: the customer picks the token there`,
    '',
    'Pay the first invoice (as a customer would), then watch it move created → seen → confirmed → settled:',
    `  npx paygate devnet pay ${i.invoice.address} ${i.invoice.amount} --asset ${i.invoice.asset} --url ${i.devnet_url}`,
    `  curl -s ${i.api_url}/invoices/${i.invoice.invoice_id} -H "X-Api-Key: ${shop?.api_key}"`,
    '',
    'Every route:',
    post(shop?.api_key ?? '', 'invoices', '{"order_id":"order-2","asset":"USDT_TRON","amount":"25","expires_in":3600}'),
    `  curl -s ${i.api_url}/invoices/<invoice_id> -H "X-Api-Key: ${shop?.api_key}"`,
    post(games?.api_key ?? '', 'addresses', '{"external_user_id":"player-42","network":"tron"}'),
    post(
      shop?.api_key ?? '',
      'payouts',
      `{"reference":"payout-1","asset":"USDT_TRON","to_address":"${i.payout_address}","amount":"5"}`,
    ),
    `  curl -s ${i.api_url}/payouts/<payout_id> -H "X-Api-Key: ${shop?.api_key}"`,
    `  curl -s ${i.api_url}/openapi.json | head -c 400`,
    '',
    "The owners' cabinet API (the page uses it too): a session, then the shop as its owner sees it:",
    `  curl -s -X POST ${i.cabinet.url}/cabinet/v1/sessions -H 'Content-Type: application/json' \\\n       -d '{"email":"${i.cabinet.email}","password":"${i.cabinet.password}"}'`,
    `  curl -s ${i.cabinet.url}/cabinet/v1/merchants/${shop?.merchant_id}/invoices -H "Authorization: Bearer <token>"`,
    '',
    'The payment page API (what the page link shows, and the customer choosing USDT):',
    `  curl -s ${i.page.checkout_url.replace('/pay/', '/pay/v1/invoices/')}`,
    `  curl -s -X POST ${i.page.checkout_url.replace('/pay/', '/pay/v1/invoices/')}/asset -H 'Content-Type: application/json' -d '{"asset":"USDT_TRON"}'`,
    '',
    'Operator commands on this instance (a first payout to an address waits for review):',
    `  export DATABASE_URL=${i.database}`,
    '  npx paygate payout list',
    '  npx paygate payout approve <payout_id>',
    `  npx paygate merchant balance ${shop?.merchant_id}`,
    '  npx paygate webhook deliveries',
    '',
    'Or run the whole story by itself: npx paygate demo --tour',
    'Press Ctrl-C to stop.',
  ].join('\n');
}
