// The payment page's entry, by the link's path: the payment (/pay/{invoice_id}), its receipt
// (/pay/{invoice_id}/receipt) or a refund's claim page (/pay/refund/{refund_id}); the language is
// the picker's remembered choice, else the browser's (what Accept-Language says).
import { render } from 'preact';
import { App } from './app.js';
import { ClaimPage } from './claim.js';
import { ReceiptPage } from './receipt.js';
import { setLanguage, startLanguage } from './i18n.js';

const root = document.getElementById('app') as HTMLElement;
const parts = location.pathname.replace(/\/+$/, '').split('/').map(decodeURIComponent);
const [, , first = '', second = ''] = parts;

await setLanguage(startLanguage());
// The static "Loading" text makes way for the page itself.
root.textContent = '';
if (first === 'refund') render(<ClaimPage id={second} />, root);
else if (second === 'receipt') render(<ReceiptPage id={first} />, root);
else render(<App id={first} />, root);
