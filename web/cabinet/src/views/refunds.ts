// Refunds: money back to an invoice's customer. On an invoice, its refunds and (for an owner) the
// form that asks first, naming the amount and the token, before anything is reserved; the
// merchant's refunds as a list. The customer gives the address on the claim link, which the owner
// sends them.
import { call, explain, get } from '../api';
import { announce, badge, errorBox, h, numeric, showError, table, type Child } from '../../../shared/dom';
import { amount, assetName, copyButton, money, unitOf, when } from '../../../shared/format';
import { canChange, viewerNote } from '../roles';
import type { Invoice, ViewContext } from '../types';
import { csvLink } from './csv';
import { invoiceLink } from './exceptions';
import { pager } from './lists';

type RefundItem = Awaited<ReturnType<typeof readRefunds>>['data'][number];

const REFUND_STATUSES = ['awaiting_address', 'requested', 'sent', 'failed', 'canceled', 'expired'] as const;

/** A refund's status in the owner's words. */
const STATUS_WORDS: Record<string, string> = {
  awaiting_address: 'waiting for the customer’s address',
  requested: 'address given; the payout is under way',
  sent: 'sent',
  failed: 'failed; the money is back in the balance',
  canceled: 'canceled',
  expired: 'expired unclaimed',
};
const statusOf = (status: string): Child => [
  badge(status),
  ' ',
  h('span', { class: 'hint' }, STATUS_WORDS[status] ?? ''),
];

function readRefunds(
  ctx: ViewContext,
  query: { invoice_id?: string; status?: string; cursor?: string; limit?: number },
) {
  return get('/cabinet/v1/merchants/{merchant_id}/refunds', ctx.params, query as never);
}

/** The claim link while the customer can still use it; after that, where the money went. */
function claimOrAddress(r: RefundItem): Child {
  if (r.status === 'awaiting_address')
    return [h('code', { class: 'claim' }, r.claim_url), ' ', copyButton(r.claim_url, 'the claim link')];
  return r.address ? h('code', {}, r.address) : '—';
}

function refundsTable(ctx: ViewContext, caption: string, rows: RefundItem[], withInvoice: boolean): HTMLElement {
  return table(
    caption,
    [
      ...(withInvoice ? ['Invoice'] : []),
      numeric('Amount'),
      'Status',
      'Claim link or address',
      'Created',
      'Claim until',
    ],
    rows.map((r) => [
      ...(withInvoice ? [invoiceLink(ctx.merchantId, r.invoice_id)] : []),
      amount(r.amount, r.asset),
      statusOf(r.status),
      claimOrAddress(r),
      when(r.created_at),
      r.status === 'awaiting_address' ? when(r.expires_at) : '—',
    ]),
    'no refund yet.',
  );
}

/** An amount with its unit, for a sentence. */
const withUnit = (value: string, asset: string): string => `${money(value, asset)} ${unitOf(asset)}`;

const DECIMAL = /^\d+(\.\d+)?$/;

/** The tokens an invoice can be refunded in: its own, and those of deposits of another token. */
function refundAssets(i: Invoice): string[] {
  const assets = new Set<string>();
  // What was received counts: the server refuses more than was credited, in words.
  if (i.asset && i.amount_received && !/^0+(\.0+)?$/.test(i.amount_received)) assets.add(i.asset);
  for (const d of i.foreign_deposits ?? []) assets.add(d.asset);
  return [...assets];
}

/** The refund form: amount, token, a note; then a confirmation naming both before it is sent. */
function refundForm(ctx: ViewContext, i: Invoice, assets: string[], done: () => void): HTMLElement {
  const error = errorBox();
  const result = h('div', { role: 'status' });
  const amountInput = h('input', {
    id: 'refund-amount',
    name: 'amount',
    inputmode: 'decimal',
    autocomplete: 'off',
    required: true,
    'aria-describedby': 'refund-amount-hint',
  });
  const asset = h(
    'select',
    { id: 'refund-asset', name: 'asset' },
    ...assets.map((a) => h('option', { value: a, selected: a === i.asset }, assetName(a))),
  );
  const openExceptions = (i.exceptions ?? []).filter((e) => e.resolution === null);
  const exception = h(
    'select',
    { id: 'refund-exception', name: 'exception_id' },
    h('option', { value: '' }, 'none'),
    ...openExceptions.map((e) =>
      h('option', { value: e.exception_id }, `${e.kind.replace(/_/g, ' ')}: ${withUnit(e.amount, e.asset)}`),
    ),
  );
  const reason = h('textarea', { id: 'refund-reason', name: 'reason', rows: 2, maxlength: 500 });
  const next = h('button', { type: 'submit' }, 'Refund…');
  const confirmSlot = h('div', {});
  const form = h(
    'form',
    { class: 'stack refund narrow', 'aria-labelledby': 'refund-form-h', novalidate: true },
    h('h3', { id: 'refund-form-h' }, 'Refund'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'refund-amount' }, 'Amount'),
      amountInput,
      h(
        'p',
        { id: 'refund-amount-hint', class: 'hint' },
        'At most what this invoice brought in that token, less earlier refunds. The payout fee is taken from your balance on top.',
      ),
    ),
    h('div', { class: 'field' }, h('label', { for: 'refund-asset' }, 'Token'), asset),
    openExceptions.length
      ? h('div', { class: 'field' }, h('label', { for: 'refund-exception' }, 'Settles the exception'), exception)
      : null,
    h('div', { class: 'field' }, h('label', { for: 'refund-reason' }, 'Reason (the customer sees it)'), reason),
    error,
    h('p', { class: 'actions' }, next),
    confirmSlot,
    result,
  );
  const send = async (value: string, token: string) => {
    try {
      const made = await call('post', '/cabinet/v1/merchants/{merchant_id}/invoices/{invoice_id}/refunds', {
        params: { ...ctx.params, invoice_id: i.invoice_id },
        body: {
          amount: value,
          ...(token !== i.asset ? { asset: token } : {}),
          ...(reason.value.trim() ? { reason: reason.value.trim() } : {}),
          ...(exception.value ? { exception_id: exception.value } : {}),
        },
      });
      confirmSlot.replaceChildren();
      form.reset();
      result.replaceChildren(
        h(
          'p',
          { class: 'summary' },
          `Refund of ${withUnit(made.amount, made.asset)} created. Send this link to the customer; they give their address on it:`,
        ),
        h('p', {}, h('code', { class: 'claim' }, made.claim_url), ' ', copyButton(made.claim_url, 'the claim link')),
      );
      announce(`Refund of ${withUnit(made.amount, made.asset)} created.`);
      done();
    } catch (err) {
      confirmSlot.replaceChildren();
      result.replaceChildren();
      showError(error, explain(err));
    } finally {
      next.disabled = false;
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    showError(error, '');
    result.replaceChildren();
    const value = amountInput.value.trim();
    if (!DECIMAL.test(value) || /^0+(\.0+)?$/.test(value))
      return showError(error, 'Write the amount as a number above zero, like 12.5.');
    const token = asset.value;
    next.disabled = true;
    const yes = h('button', { type: 'button', class: 'danger' }, `Send ${withUnit(value, token)} back`);
    const no = h('button', { type: 'button', class: 'secondary-plain' }, 'Go back');
    const panel = h(
      'div',
      {
        class: 'confirm',
        role: 'alertdialog',
        'aria-labelledby': 'refund-confirm-h',
        'aria-describedby': 'refund-confirm-p',
      },
      h('h4', { id: 'refund-confirm-h' }, `Refund ${withUnit(value, token)}?`),
      h(
        'p',
        { id: 'refund-confirm-p' },
        `${withUnit(value, token)} (${assetName(token)}) goes back to the customer of order ${i.order_id}. It and the payout fee are reserved from your balance now; the customer gives the address on the claim link.`,
      ),
      h('p', { class: 'actions' }, yes, no),
    );
    yes.addEventListener('click', () => {
      yes.disabled = true;
      no.disabled = true;
      void send(value, token);
    });
    no.addEventListener('click', () => {
      confirmSlot.replaceChildren();
      next.disabled = false;
      amountInput.focus();
    });
    confirmSlot.replaceChildren(panel);
    yes.focus();
  });
  return form;
}

/** An invoice's refunds and, for an owner, the form; kept outside the polled part of the view. */
export function invoiceRefunds(ctx: ViewContext, i: Invoice): HTMLElement {
  const section = h('section', { class: 'stack', 'aria-labelledby': 'refunds-h' });
  const list = h('div', {});
  const load = async () => {
    try {
      const page = await readRefunds(ctx, { invoice_id: i.invoice_id, limit: 100 });
      list.replaceChildren(refundsTable(ctx, 'Refunds of this invoice, newest first', page.data, false));
    } catch (e) {
      list.replaceChildren(h('p', { class: 'error' }, explain(e)));
    }
  };
  void load();
  const assets = refundAssets(i);
  const owner = canChange(ctx.merchant);
  section.append(
    h('h2', { id: 'refunds-h' }, 'Refunds'),
    list,
    ...(owner
      ? [
          assets.length
            ? refundForm(ctx, i, assets, () => void load())
            : h('p', { class: 'hint' }, 'Nothing was received yet, so there is nothing to refund.'),
        ]
      : [viewerNote()]),
  );
  return section;
}

/** The merchant's refunds, with a status filter. */
export async function refundsView(ctx: ViewContext): Promise<void> {
  const q = ctx.query;
  const status = REFUND_STATUSES.find((s) => s === q.status);
  const page = await readRefunds(ctx, { status, cursor: q.cursor, limit: 20 });
  const select = h(
    'select',
    { id: 'f-status', name: 'status' },
    h('option', { value: '' }, 'any'),
    ...REFUND_STATUSES.map((s) => h('option', { value: s, selected: status === s }, s.replace(/_/g, ' '))),
  );
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter refunds' },
    h('div', { class: 'field' }, h('label', { for: 'f-status' }, 'Status'), select),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = `#/m/${ctx.merchantId}/refunds${select.value ? `?status=${select.value}` : ''}`;
  });
  ctx.show(
    'Refunds',
    h('p', {}, 'Money sent back to customers. A refund is made on its invoice’s page.'),
    form,
    refundsTable(ctx, 'Refunds, newest first', page.data, true),
    pager(ctx, 'refunds', page.next_cursor),
    csvLink(ctx.merchantId, 'refunds', { status }),
  );
}
