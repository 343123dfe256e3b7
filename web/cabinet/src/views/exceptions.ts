// Exceptions: payments that did not go as planned (too little, too much, too late, another token),
// listed until an owner says what was done about them. Viewers read; only owners resolve.
import { call, explain, get } from '../api';
import { announce, errorBox, h, link, numeric, showError, table, type Child } from '../../../shared/dom';
import { amount, when } from '../../../shared/format';
import { canChange, viewerNote } from '../roles';
import type { ExceptionItem, ViewContext } from '../types';
import { csvLink } from './csv';
import { pager } from './lists';

/** The kinds an owner sees, in plain words. */
const KIND_WORDS: Record<string, string> = {
  underpaid: 'Paid too little',
  overpaid: 'Paid too much',
  paid_late: 'Paid after the term',
  foreign_asset: 'Another token sent',
};

export const kindWords = (kind: string): string => KIND_WORDS[kind] ?? kind.replace(/_/g, ' ');

/** The end of an invoice id: its start is a time, alike for invoices made close together. */
const idTail = (id: string): string => `…${id.slice(-8)}`;

/** The invoice an exception is about, linked by the end of its id. */
export const invoiceLink = (merchantId: string, invoiceId: string | null): Child =>
  invoiceId ? link(`#/m/${merchantId}/invoices/${invoiceId}`, `Invoice ${idTail(invoiceId)}`) : '—';

/** What was done, or that nothing was yet. */
export const outcome = (e: Pick<ExceptionItem, 'resolution' | 'resolved_at'>): Child =>
  e.resolution
    ? [h('span', {}, e.resolution.note), ' ', h('span', { class: 'hint line' }, when(e.resolved_at))]
    : 'open';

function readPage(ctx: ViewContext, open: boolean) {
  return get('/cabinet/v1/merchants/{merchant_id}/exceptions', ctx.params, {
    open: open ? 'true' : 'false',
    cursor: ctx.query.cursor,
    limit: 20,
  });
}

/** The open / resolved choice; it goes in the address so Back works. */
function stateFilter(ctx: ViewContext, open: boolean): HTMLElement {
  const select = h(
    'select',
    { id: 'f-open', name: 'open' },
    h('option', { value: 'true', selected: open }, 'open'),
    h('option', { value: 'false', selected: !open }, 'resolved'),
  );
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter exceptions' },
    h('div', { class: 'field' }, h('label', { for: 'f-open' }, 'Show'), select),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = `#/m/${ctx.merchantId}/exceptions${select.value === 'false' ? '?open=false' : ''}`;
  });
  return form;
}

/** The note form for one exception: shown under the list when its Resolve button is pressed. */
function resolveForm(ctx: ViewContext, e: ExceptionItem, done: () => void): HTMLElement {
  const error = errorBox();
  const note = h('textarea', { id: 'resolve-note', name: 'note', rows: 3, maxlength: 500, required: true });
  const form = h(
    'form',
    { class: 'stack resolve', 'aria-labelledby': 'resolve-h', novalidate: true },
    h('h2', { id: 'resolve-h' }, `Resolve: ${kindWords(e.kind)}`),
    h('p', {}, invoiceLink(ctx.merchantId, e.invoice_id), ' · ', amount(e.amount, e.asset)),
    h('label', { for: 'resolve-note' }, 'Note (what was done: a refund, a call, nothing owed)'),
    note,
    error,
    h('p', { class: 'actions' }, h('button', { type: 'submit' }, 'Mark resolved')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = note.value.trim();
    if (!text) return showError(error, 'Write a note of what was done (up to 500 characters).');
    const params = { ...ctx.params, exception_id: e.exception_id };
    call('post', '/cabinet/v1/merchants/{merchant_id}/exceptions/{exception_id}/resolve', {
      params,
      body: { note: text },
    }).then(
      () => {
        announce('The exception is resolved.');
        done();
      },
      (err: unknown) => showError(error, explain(err)),
    );
  });
  return form;
}

export async function exceptionsView(ctx: ViewContext): Promise<void> {
  const open = ctx.query.open !== 'false';
  const page = await readPage(ctx, open);
  const owner = canChange(ctx.merchant);
  const formSlot = h('div', {});
  const choose = (e: ExceptionItem) => {
    const form = resolveForm(ctx, e, () => void exceptionsView(ctx));
    formSlot.replaceChildren(form);
    form.querySelector('textarea')?.focus();
  };
  const rows = page.data.map((e) => [
    kindWords(e.kind),
    invoiceLink(ctx.merchantId, e.invoice_id),
    amount(e.amount, e.asset),
    when(e.created_at),
    open && owner
      ? h(
          'button',
          {
            type: 'button',
            class: 'small',
            'aria-label': `Resolve ${kindWords(e.kind)}, invoice ${e.invoice_id ? idTail(e.invoice_id) : ''}`,
            onclick: () => choose(e),
          },
          'Resolve',
        )
      : outcome(e),
  ]);
  ctx.show(
    'Exceptions',
    h('p', {}, 'Payments that did not go as planned. Each stays open until an owner says what was done.'),
    owner ? null : viewerNote(),
    stateFilter(ctx, open),
    table(
      open ? 'Open exceptions, newest first' : 'Resolved exceptions, newest first',
      ['What', 'Invoice', numeric('Amount'), 'When', open ? (owner ? 'Action' : 'State') : 'Resolution'],
      rows,
      open ? 'nothing needs attention.' : 'none resolved yet.',
    ),
    pager(ctx, 'exceptions', page.next_cursor),
    csvLink(ctx.merchantId, 'exceptions', { open: open ? 'true' : 'false' }),
    formSlot,
  );
}
