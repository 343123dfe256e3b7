// The webhook delivery log of a merchant and one delivery with its attempts.
import { get } from '../api';
import { badge, fields, h, link, table } from '../../../shared/dom';
import { when } from '../../../shared/format';
import type { ViewContext } from '../types';
import { csvLink } from './csv';
import { pager } from './lists';

const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'failed'] as const;
type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The invoice or payout a delivery is about, linked; a deposit by its id. */
export function subjectLink(merchantId: string, subject: { type: string; id: string }): HTMLElement | string {
  if (subject.type === 'invoice') return link(`#/m/${merchantId}/invoices/${subject.id}`, 'the invoice');
  if (subject.type === 'payout') return link(`#/m/${merchantId}/payouts/${subject.id}`, 'the payout');
  return `${subject.type} ${subject.id}`;
}

export async function deliveriesView(ctx: ViewContext): Promise<void> {
  const q = ctx.query;
  const status = DELIVERY_STATUSES.find((s) => s === q.status) as DeliveryStatus | undefined;
  const page = await get('/cabinet/v1/merchants/{merchant_id}/deliveries', ctx.params, {
    status,
    cursor: q.cursor,
    limit: 20,
  });
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter deliveries' },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'f-status' }, 'Status'),
      h(
        'select',
        { id: 'f-status', name: 'status' },
        h('option', { value: '' }, 'any'),
        ...DELIVERY_STATUSES.map((s) => h('option', { value: s, selected: q.status === s }, s)),
      ),
    ),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const chosen = new FormData(form).get('status');
    location.hash = `#/m/${ctx.merchantId}/deliveries${chosen ? `?status=${String(chosen)}` : ''}`;
  });
  ctx.show(
    'Webhook deliveries',
    h('p', {}, 'Every event sent to your webhook endpoint, with each attempt. Only the operator resends a failed one.'),
    form,
    table(
      'Deliveries, newest first',
      ['Event', 'Type', 'About', 'Status', 'Attempts', 'Last answer', 'Created'],
      page.data.map((d) => [
        link(`#/m/${ctx.merchantId}/deliveries/${d.delivery_id}`, d.event_id),
        d.type,
        subjectLink(ctx.merchantId, d.subject),
        badge(d.retrying ? 'retrying' : d.status),
        String(d.attempts),
        d.last_status_code ? `HTTP ${d.last_status_code}` : (d.last_error ?? '—'),
        when(d.created_at),
      ]),
      'no delivery matches.',
    ),
    pager(ctx, 'deliveries', page.next_cursor),
    csvLink(ctx.merchantId, 'deliveries', { status }),
  );
}

export async function deliveryView(ctx: ViewContext): Promise<void> {
  const d = await get('/cabinet/v1/merchants/{merchant_id}/deliveries/{delivery_id}', {
    ...ctx.params,
    delivery_id: ctx.id ?? '',
  });
  ctx.show(
    'Webhook delivery',
    fields([
      ['Status', badge(d.status)],
      ['Event id (webhook-id)', h('code', {}, d.event_id)],
      ['Type', d.type],
      ['About', subjectLink(ctx.merchantId, d.subject)],
      ['Attempts', String(d.attempts)],
      ['Next attempt', when(d.next_attempt_at)],
      ['Created', when(d.created_at)],
    ]),
    h('h2', {}, 'Attempts'),
    table(
      'Every attempt, oldest first',
      ['#', 'At', 'URL', 'Answer', 'Duration', 'Outcome', 'Response excerpt'],
      d.attempts_log.map((a) => [
        String(a.attempt),
        when(a.at),
        h('code', {}, a.url),
        a.status_code ? `HTTP ${a.status_code}` : (a.error ?? '—'),
        `${a.duration_ms} ms`,
        badge(a.outcome),
        a.response_excerpt || '—',
      ]),
      'none yet.',
    ),
  );
}
