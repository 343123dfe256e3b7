// Invoices and payouts: lists with filters and pages, and detail views that poll.
import { get } from '../api';
import { badge, fields, h, link, table, time, type Child } from '../dom';
import type { Invoice, Payout, ViewContext } from '../types';
import { INVOICE_COLUMNS, invoiceRow, PAYOUT_COLUMNS, payoutRow } from './dashboard';

export type ListContext = ViewContext & { statuses: Record<string, string[]> };

/** `YYYY-MM-DD` (a UTC day) as the API's from/to; the `to` day is included. */
const dayStart = (day: string | undefined, plus = 0) =>
  day ? new Date(Date.parse(`${day}T00:00:00Z`) + plus * 86_400_000).toISOString() : undefined;

/** The filter form of a list; submitting it puts the filters in the address (so Back works). */
export function filterForm(ctx: ViewContext, section: string, statuses: string[]): HTMLFormElement {
  const q = ctx.query;
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': `Filter ${section}` },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'f-status' }, 'Status'),
      h(
        'select',
        { id: 'f-status', name: 'status' },
        h('option', { value: '' }, 'any'),
        ...statuses.map((s) => h('option', { value: s, selected: q.status === s }, s.replace(/_/g, ' '))),
      ),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'f-from' }, 'From (UTC day)'),
      h('input', { id: 'f-from', name: 'from', type: 'date', value: q.from ?? '' }),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'f-to' }, 'To (UTC day, included)'),
      h('input', { id: 'f-to', name: 'to', type: 'date', value: q.to ?? '' }),
    ),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const query = new URLSearchParams();
    for (const key of ['status', 'from', 'to']) if (data.get(key)) query.set(key, String(data.get(key)));
    location.hash = `#/m/${ctx.merchantId}/${section}${query.size ? `?${query}` : ''}`;
  });
  return form;
}

/** The API query of a list view: its filters and page. */
export function listQuery(q: Record<string, string>) {
  return { status: q.status, from: dayStart(q.from), to: dayStart(q.to, 1), cursor: q.cursor, limit: 20 };
}

/** Links to the next and the first page (the cursor lives in the address). */
export function pager(ctx: ViewContext, section: string, nextCursor: string | null): HTMLElement | null {
  const params = (cursor: string | null) => {
    const query = new URLSearchParams(Object.entries(ctx.query).filter(([k, v]) => k !== 'cursor' && v));
    if (cursor) query.set('cursor', cursor);
    return `#/m/${ctx.merchantId}/${section}${query.size ? `?${query}` : ''}`;
  };
  const links: HTMLElement[] = [];
  if (ctx.query.cursor) links.push(link(params(null), 'First page'));
  if (nextCursor) links.push(link(params(nextCursor), 'Next page'));
  return links.length ? h('nav', { class: 'pager', 'aria-label': 'Pages' }, ...links) : null;
}

export async function invoicesView(ctx: ListContext): Promise<void> {
  const page = await get('/cabinet/v1/merchants/{merchant_id}/invoices', ctx.params, listQuery(ctx.query) as never);
  ctx.show(
    'Invoices',
    filterForm(ctx, 'invoices', ctx.statuses.invoices ?? []),
    table(
      'Invoices, newest first',
      INVOICE_COLUMNS,
      page.data.map((i) => invoiceRow(ctx.merchantId, i)),
      'no invoice matches.',
    ),
    pager(ctx, 'invoices', page.next_cursor),
  );
}

export async function payoutsView(ctx: ListContext): Promise<void> {
  const page = await get('/cabinet/v1/merchants/{merchant_id}/payouts', ctx.params, listQuery(ctx.query) as never);
  ctx.show(
    'Payouts',
    filterForm(ctx, 'payouts', ctx.statuses.payouts ?? []),
    table(
      'Payouts, newest first',
      PAYOUT_COLUMNS,
      page.data.map((p) => payoutRow(ctx.merchantId, p)),
      'no payout matches.',
    ),
    pager(ctx, 'payouts', page.next_cursor),
  );
}

function invoiceContent(i: Invoice): Child[] {
  return [
    fields([
      ['Status', badge(i.status)],
      ['Order', i.order_id],
      ['Invoice id', h('code', {}, i.invoice_id)],
      ['Asset', `${i.asset} on ${i.network}`],
      ['Deposit address', h('code', {}, i.address)],
      ['Requested', i.amount_requested],
      ['Expected from the customer', i.amount_expected],
      ['Received', i.amount_received],
      ['Credited to the balance', i.amount_credited],
      ['Service fee', `${i.fees.service.amount} (${i.fees.service.percent} %, paid by the ${i.fees.service.payer})`],
      ['User', i.external_user_id],
      ['Expires', time(i.expires_at)],
      ['Created', time(i.created_at)],
    ]),
    h('h2', { id: 'deposits-h' }, 'Deposits'),
    table(
      'Deposits of this invoice, in chain order',
      ['Transaction', 'Amount', 'Confirmations', 'Status', 'Block time', 'Late'],
      i.deposits.map((d) => [
        h('code', {}, d.tx_hash),
        d.amount,
        String(d.confirmations),
        badge(d.status),
        time(d.block_time),
        d.late ? 'yes' : 'no',
      ]),
      'none seen yet.',
    ),
  ];
}

/** A detail view that asks again every few seconds and redraws only what changed. */
async function polledDetail<T>(ctx: ViewContext, title: string, read: () => Promise<T>, content: (r: T) => Child[]) {
  const region = h('div', { class: 'stack', 'aria-live': 'off' });
  let last = '';
  const load = async () => {
    const record = await read();
    const text = JSON.stringify(record);
    if (text === last) return;
    last = text;
    region.replaceChildren(...(content(record) as Array<Node | string>));
  };
  await load();
  ctx.show(title, h('p', { class: 'summary' }, 'Updates by itself every few seconds.'), region);
  ctx.poll(load);
}

export function invoiceView(ctx: ViewContext): Promise<void> {
  const params = { ...ctx.params, invoice_id: ctx.id ?? '' };
  return polledDetail(
    ctx,
    'Invoice',
    () => get('/cabinet/v1/merchants/{merchant_id}/invoices/{invoice_id}', params),
    invoiceContent,
  );
}

export function payoutView(ctx: ViewContext): Promise<void> {
  const params = { ...ctx.params, payout_id: ctx.id ?? '' };
  return polledDetail(
    ctx,
    'Payout',
    () => get('/cabinet/v1/merchants/{merchant_id}/payouts/{payout_id}', params),
    (p: Payout) => [
      fields([
        ['Status', badge(p.status)],
        ['Reference', p.reference],
        ['Payout id', h('code', {}, p.payout_id)],
        ['Amount', `${p.amount} ${p.asset} on ${p.network}`],
        ['To', h('code', {}, p.to_address)],
        ['Payout fee', `${p.fees.network.amount} (charged ${p.fees.network.charged})`],
        ['Review reasons', p.review_reasons.length ? p.review_reasons.join(', ').replace(/_/g, ' ') : 'none'],
        ['Transaction', p.tx_hash ? h('code', {}, p.tx_hash) : 'not sent yet'],
        ['Created', time(p.created_at)],
        ['Updated', time(p.updated_at)],
      ]),
    ],
  );
}
