// The webhook delivery log of a merchant and one delivery with its attempts.
import { get, withQuery } from '../api.js';
import { badge, fields, h, link, table, time } from '../dom.js';
import { pager } from './activity.js';

export async function deliveriesView(ctx) {
  const q = ctx.query;
  const page = await get(withQuery(`${ctx.base}/deliveries`, { status: q.status, cursor: q.cursor, limit: 20 }));
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
        ['pending', 'delivered', 'failed'].map((s) => h('option', { value: s, selected: q.status === s }, s)),
      ),
    ),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const status = new FormData(form).get('status');
    location.hash = `#/m/${ctx.merchantId}/deliveries${status ? `?status=${status}` : ''}`;
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

export async function deliveryView(ctx) {
  const d = await get(`${ctx.base}/deliveries/${ctx.id}`);
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
