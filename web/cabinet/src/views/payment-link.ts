// A new payment link: a page invoice priced in dollars, paid in the token the customer picks on the
// page the link opens. The form stays filled after a refusal so one field can be fixed and sent again.
import { ApiError, call, explain, get } from '../api';
import { announce, errorBox, h, link, showError, type Child } from '../../../shared/dom';
import { assetName, copyButton, when } from '../../../shared/format';
import type { Merchant, ViewContext } from '../types';
import { canChange, viewerNote } from '../roles';

const EXPIRIES: Array<[number, string]> = [
  [3600, '1 hour'],
  [86_400, '1 day'],
  [259_200, '3 days'],
  [604_800, '7 days (the longest)'],
];

const field = (id: string, label: string, control: HTMLElement, hint?: string): HTMLElement =>
  h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    hint ? h('p', { id: `${id}-hint`, class: 'hint' }, hint) : null,
  );

/** The dollar tokens this merchant can offer now, as boxes to tick; none ticked offers them all. */
function currencies(m: Merchant): HTMLElement {
  const pegged = m.assets.filter((a) => a.usd_pegged && a.payments && a.offered);
  if (pegged.length === 0)
    return h('p', { class: 'warning' }, 'No dollar token is received now: a payment link cannot be paid yet.');
  return h(
    'fieldset',
    { class: 'choices', 'aria-describedby': 'pl-currencies-hint' },
    h('legend', {}, 'Tokens the customer may pick (optional)'),
    ...pegged.map((a) =>
      h(
        'p',
        { class: 'check' },
        h('input', { id: `pl-cur-${a.asset}`, name: 'currencies', type: 'checkbox', value: a.asset }),
        h('label', { for: `pl-cur-${a.asset}` }, assetName(a.asset)),
      ),
    ),
    h(
      'p',
      { id: 'pl-currencies-hint', class: 'hint' },
      'None ticked: every dollar token you receive now that can hold the price. One token is one dollar.',
    ),
  );
}

/** The refusal in words, naming the form's fields rather than the API's. */
function refusal(e: unknown): string {
  if (e instanceof ApiError && e.code === 'validation_failed')
    return `Not created: ${explain(e)
      .replace(/\bprice\b/, 'Price')
      .replace(/\border_id\b/, 'Order id')
      .replace(/\bdescription\b/, 'Description')
      .replace(/\bexternal_user_id\b/, 'User id')}.`;
  return `Not created: ${explain(e)}`;
}

export async function paymentLinkView(ctx: ViewContext): Promise<void> {
  if (!canChange(ctx.merchant)) {
    ctx.show('New payment link', viewerNote());
    return;
  }
  const m = await get('/cabinet/v1/merchants/{merchant_id}', ctx.params);
  const error = errorBox();
  const result = h('div', { class: 'stack', role: 'status' });
  const input = (id: string, props: Record<string, string | boolean>) =>
    h('input', { id, 'aria-describedby': `${id}-hint`, ...props });
  const perUser = m.address_mode === 'per_user';
  const form = h(
    'form',
    { class: 'card narrow', novalidate: true, 'aria-label': 'New payment link' },
    field(
      'pl-price',
      'Price in US dollars',
      input('pl-price', { name: 'price', inputmode: 'decimal', required: true, autocomplete: 'off' }),
      'Plain decimal text, like 19.99.',
    ),
    field(
      'pl-order',
      'Order id',
      input('pl-order', { name: 'order_id', required: true, autocomplete: 'off' }),
      'Your reference, unique among your invoices (no spaces).',
    ),
    field(
      'pl-description',
      'Description (optional)',
      input('pl-description', { name: 'description', maxlength: '200', autocomplete: 'off' }),
      'What the customer pays for, shown on the payment page.',
    ),
    perUser
      ? field(
          'pl-user',
          'User id',
          input('pl-user', { name: 'external_user_id', required: true, autocomplete: 'off' }),
          'Your id of the paying user: the customer pays to that user’s address.',
        )
      : null,
    currencies(m),
    field(
      'pl-expiry',
      'Expires in',
      h(
        'select',
        { id: 'pl-expiry', name: 'expires_in' },
        ...EXPIRIES.map(([s, text]) => h('option', { value: String(s), selected: s === 86_400 }, text)),
      ),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create the link')),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showError(error, '');
    const data = new FormData(form);
    const text = (key: string) => String(data.get(key) ?? '').trim();
    const chosen = data.getAll('currencies').map(String);
    try {
      const made = await call('post', '/cabinet/v1/merchants/{merchant_id}/invoices', {
        params: ctx.params,
        body: {
          price: text('price'),
          order_id: text('order_id'),
          expires_in: Number(text('expires_in')),
          ...(text('description') ? { description: text('description') } : {}),
          ...(perUser ? { external_user_id: text('external_user_id') } : {}),
          ...(chosen.length ? { currencies: chosen } : {}),
        },
      });
      announce('The payment link is ready.');
      const offered: Child = made.currencies.map(assetName).join(', ');
      result.replaceChildren(
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'pl-made-h' },
          h('h2', { id: 'pl-made-h', tabindex: -1 }, `Payment link for ${made.order_id}`),
          h('p', {}, 'Send this link to your customer alone: it is all they need to pay.'),
          h(
            'p',
            { class: 'link-line' },
            h('code', { id: 'pl-url' }, made.checkout_url),
            ' ',
            copyButton(made.checkout_url, 'the link'),
          ),
          h('p', { class: 'hint' }, `${made.price} USD in ${offered}; expires `, when(made.expires_at), '.'),
          h('p', {}, link(`#/m/${ctx.merchantId}/invoices/${made.invoice_id}`, 'Open the invoice')),
        ),
      );
      // Below the form on a phone: the link comes into view, and a screen reader reads it next.
      document.getElementById('pl-made-h')?.focus();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return;
      result.replaceChildren();
      showError(error, refusal(err));
    }
  });
  ctx.show(
    'New payment link',
    h(
      'p',
      { class: 'summary' },
      'A link to a page where your customer pays a price in dollars, in the dollar token they pick.',
    ),
    form,
    error,
    result,
  );
}
