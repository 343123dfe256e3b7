// The payment page's entry: the invoice id is the last part of the link (/pay/{invoice_id}).
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app') as HTMLElement;
const id = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop() ?? '');

// The static "Loading" text makes way for the page itself.
root.textContent = '';
render(<App id={id} />, root);
