// The payment page's entry: the invoice id is the last part of the link (/pay/{invoice_id}); the
// language is the picker's remembered choice, else the browser's (what Accept-Language says).
import { render } from 'preact';
import { App } from './app.js';
import { setLanguage, startLanguage } from './i18n.js';

const root = document.getElementById('app') as HTMLElement;
const id = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop() ?? '');

await setLanguage(startLanguage());
// The static "Loading" text makes way for the page itself.
root.textContent = '';
render(<App id={id} />, root);
