// The webhook delivery log of a merchant and one delivery with its attempts.
import { get } from '../api';
import { badge, fields, h, link, table, time } from '../dom';
import type { ViewContext } from '../types';
import { pager } from './activity';

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

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
      ['Event', 'Type', 'Status', 'Attempts', 'Last answer', 'Created'],
      page.data.map((d) => [
        link(`#/m/${ctx.merchantId}/deliveries/${d.delivery_id}`, d.event_id),
        d.type,
        badge(d.status),
        String(d.attempts),
        d.last_status_code ? `HTTP ${d.last_status_code}` : (d.last_error ?? '—'),
        time(d.created_at),
      ]),
      'no delivery matches.',
    ),
    pager(ctx, 'deliveries', page.next_cursor),
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
      ['Attempts', String(d.attempts)],
      ['Next attempt', time(d.next_attempt_at)],
      ['Created', time(d.created_at)],
    ]),
    h('h2', {}, 'Attempts'),
    table(
      'Every attempt, oldest first',
      ['#', 'At', 'URL', 'Answer', 'Duration', 'Outcome', 'Response excerpt'],
      d.attempts_log.map((a) => [
        String(a.attempt),
        time(a.at),
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
