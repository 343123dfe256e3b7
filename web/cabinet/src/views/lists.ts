// Invoices and payouts: lists with filters in the address, pages, and errors that keep the form.
import { ApiError, explain, get } from '../api';
import { errorBox, h, link, showError, table } from '../../../shared/dom';
import { assetName } from '../../../shared/format';
import { INVOICE_STATUSES, PAYOUT_STATUSES } from '../statuses';
import type { ViewContext } from '../types';
import { canChange } from '../roles';
import { csvLink } from './csv';
import { INVOICE_COLUMNS, invoiceRow, PAYOUT_COLUMNS, payoutRow } from './rows';

/** `YYYY-MM-DD` (a UTC day) as the start of that day, or of the day after (`plus` 1). */
export const dayStart = (day: string, plus = 0): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + plus * 86_400_000).toISOString();

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The period of a filter or a report: both days included, so From = To is that one day. Returns
 * the API's half-open [from, to) or the words that say what to fix.
 */
export function period(from: string, to: string): { from?: string; to?: string } | string {
  if ((from && !DAY.test(from)) || (to && !DAY.test(to))) return 'A day is written YYYY-MM-DD.';
  if (from && to && from > to) return 'From is after To: choose a From day on or before the To day.';
  return { from: from ? dayStart(from) : undefined, to: to ? dayStart(to, 1) : undefined };
}

const FILTER_KEYS = ['q', 'status', 'asset', 'from', 'to'] as const;

/** The filter form of a list; submitting it puts the filters in the address (so Back works). */
export function filterForm(
  ctx: ViewContext,
  section: string,
  statuses: readonly string[],
  error: HTMLElement,
  assets: readonly string[],
) {
  const q = ctx.query;
  const searchHint =
    section === 'invoices'
      ? 'Matches the start of an order id, address or transaction hash (3 characters or more), or a whole invoice id.'
      : 'Matches the start of a reference, address or transaction hash (3 characters or more), or a whole payout id.';
  const field = (id: string, label: string, control: HTMLElement) =>
    h('div', { class: 'field' }, h('label', { for: id }, label), control);
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': `Filter ${section}`, novalidate: true },
    h(
      'div',
      { class: 'field wide' },
      h('label', { for: 'f-q' }, 'Search'),
      h('input', { id: 'f-q', name: 'q', type: 'search', value: q.q ?? '', 'aria-describedby': 'f-q-hint' }),
      h('p', { id: 'f-q-hint', class: 'hint' }, searchHint),
    ),
    field(
      'f-asset',
      'Asset',
      h(
        'select',
        { id: 'f-asset', name: 'asset' },
        h('option', { value: '' }, 'any'),
        ...assets.map((a) => h('option', { value: a, selected: q.asset === a }, assetName(a))),
      ),
    ),
    field(
      'f-status',
      'Status',
      h(
        'select',
        { id: 'f-status', name: 'status' },
        h('option', { value: '' }, 'any'),
        ...statuses.map((s) => h('option', { value: s, selected: q.status === s }, s.replace(/_/g, ' '))),
      ),
    ),
    field('f-from', 'From (UTC day)', h('input', { id: 'f-from', name: 'from', type: 'date', value: q.from ?? '' })),
    field('f-to', 'To (UTC day, included)', h('input', { id: 'f-to', name: 'to', type: 'date', value: q.to ?? '' })),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const value = (key: string) => String(data.get(key) ?? '').trim();
    const checked = period(value('from'), value('to'));
    if (typeof checked === 'string') return showError(error, checked);
    const query = new URLSearchParams();
    for (const key of FILTER_KEYS) if (value(key)) query.set(key, value(key));
    location.hash = `#/m/${ctx.merchantId}/${section}${query.size ? `?${query}` : ''}`;
  });
  return form;
}

/** Links to the next and the first page (the cursor lives in the address); null when there is one page. */
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

/** A refusal of the list's request in the words of the form's fields. */
function refusal(e: unknown): string {
  if (e instanceof ApiError && e.code === 'validation_failed')
    return `The filter was refused: ${explain(e).replace(/^cursor /, 'page link ')}. Change it and show again.`;
  return explain(e);
}

/** A list view: the form always, then the table or what went wrong. */
async function listView<T>(
  ctx: ViewContext,
  o: {
    section: string;
    title: string;
    statuses: readonly string[];
    read: (query: Record<string, string | number | undefined>) => Promise<{ data: T[]; next_cursor: string | null }>;
    table: (rows: T[]) => HTMLElement;
    /** What the view offers besides the list (a link to a form), above the filters. */
    lead?: HTMLElement;
  },
): Promise<void> {
  const error = errorBox();
  // The asset filter offers the merchant's assets (one small request beside the list's).
  const merchant = await get('/cabinet/v1/merchants/{merchant_id}', ctx.params).catch(() => null);
  const form = filterForm(ctx, o.section, o.statuses, error, merchant?.assets.map((a) => a.asset) ?? []);
  const q = ctx.query;
  const checked = period(q.from ?? '', q.to ?? '');
  if (typeof checked === 'string') {
    showError(error, checked);
    ctx.show(o.title, o.lead, form, error);
    return;
  }
  try {
    const filters = { q: q.q, status: q.status, asset: q.asset, ...checked };
    const page = await o.read({ ...filters, cursor: q.cursor, limit: 20 });
    ctx.show(
      o.title,
      o.lead,
      form,
      error,
      o.table(page.data),
      pager(ctx, o.section, page.next_cursor),
      csvLink(ctx.merchantId, o.section, filters),
    );
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) throw e;
    showError(error, refusal(e));
    ctx.show(o.title, o.lead, form, error);
  }
}

export function invoicesView(ctx: ViewContext): Promise<void> {
  return listView(ctx, {
    section: 'invoices',
    title: 'Invoices',
    statuses: INVOICE_STATUSES,
    lead: canChange(ctx.merchant)
      ? h(
          'p',
          { class: 'actions lead' },
          link(`#/m/${ctx.merchantId}/invoices/new`, 'New payment link', { class: 'button' }),
          h('span', { class: 'hint' }, 'A price in dollars, paid in the token your customer picks.'),
        )
      : undefined,
    read: (query) => get('/cabinet/v1/merchants/{merchant_id}/invoices', ctx.params, query as never),
    table: (rows) =>
      table(
        'Invoices, newest first',
        INVOICE_COLUMNS,
        rows.map((i) => invoiceRow(ctx.merchantId, i)),
        'no invoice matches.',
      ),
  });
}

export function payoutsView(ctx: ViewContext): Promise<void> {
  return listView(ctx, {
    section: 'payouts',
    title: 'Payouts',
    statuses: PAYOUT_STATUSES,
    read: (query) => get('/cabinet/v1/merchants/{merchant_id}/payouts', ctx.params, query as never),
    table: (rows) =>
      table(
        'Payouts, newest first',
        PAYOUT_COLUMNS,
        rows.map((p) => payoutRow(ctx.merchantId, p)),
        'no payout matches.',
      ),
  });
}
