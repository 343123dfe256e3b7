// The dashboard: balances, the latest invoices and payouts, failed webhook deliveries. It polls.
import { get, withQuery } from '../api.js';
import { badge, h, link, table, time } from '../dom.js';

export const invoiceRow = (base, i) => [
  link(`#${base.replace('/merchants', '/m')}/invoices/${i.invoice_id}`, i.order_id),
  badge(i.status),
  `${i.amount_requested} ${i.asset}`,
  `${i.amount_received} ${i.asset}`,
  time(i.created_at),
];
export const INVOICE_COLUMNS = ['Order', 'Status', 'Requested', 'Received', 'Created'];

export const payoutRow = (base, p) => [
  link(`#${base.replace('/merchants', '/m')}/payouts/${p.payout_id}`, p.reference),
  badge(p.status),
  `${p.amount} ${p.asset}`,
  h('code', {}, p.to_address),
  time(p.created_at),
];
export const PAYOUT_COLUMNS = ['Reference', 'Status', 'Amount', 'To', 'Created'];

export async function dashboardView(ctx) {
  const { base, merchant } = ctx;
  const region = h('div', { class: 'stack' });
  let last = '';
  const load = async () => {
    const [balances, invoices, payouts, failed] = await Promise.all([
      get(`${base}/balances`),
      get(withQuery(`${base}/invoices`, { limit: 5 })),
      get(withQuery(`${base}/payouts`, { limit: 5 })),
      get(withQuery(`${base}/deliveries`, { status: 'failed', limit: 5 })),
    ]);
    const text = JSON.stringify([balances, invoices, payouts, failed]);
    // Unchanged data leaves the page alone (and the reader's focus where it is).
    if (text === last) return;
    last = text;
    region.replaceChildren(
      h(
        'section',
        { 'aria-labelledby': 'balances-h' },
        h('h2', { id: 'balances-h' }, 'Balances'),
        table(
          'Balance per asset',
          ['Asset', 'Available', 'Reserved for payouts', 'Total'],
          balances.balances.map((b) => [b.asset, b.available, b.reserved, b.total]),
          'no money booked yet.',
        ),
      ),
      h(
        'section',
        { 'aria-labelledby': 'invoices-h' },
        h('h2', { id: 'invoices-h' }, 'Latest invoices'),
        table(
          'The five newest invoices',
          INVOICE_COLUMNS,
          invoices.data.map((i) => invoiceRow(base, i)),
          'none yet.',
        ),
      ),
      h(
        'section',
        { 'aria-labelledby': 'payouts-h' },
        h('h2', { id: 'payouts-h' }, 'Latest payouts'),
        table(
          'The five newest payouts',
          PAYOUT_COLUMNS,
          payouts.data.map((p) => payoutRow(base, p)),
          'none yet.',
        ),
      ),
      h(
        'section',
        { 'aria-labelledby': 'failed-h' },
        h('h2', { id: 'failed-h' }, 'Failed webhook deliveries'),
        table(
          'Deliveries that gave up (the operator can resend them)',
          ['Event', 'Type', 'Attempts', 'Last error', 'Created'],
          failed.data.map((d) => [
            link(`#/m/${ctx.merchantId}/deliveries/${d.delivery_id}`, d.event_id),
            d.type,
            String(d.attempts),
            d.last_error ?? (d.last_status_code ? `HTTP ${d.last_status_code}` : '—'),
            time(d.created_at),
          ]),
          'none.',
        ),
      ),
    );
  };
  await load();
  ctx.show(
    merchant.name,
    h(
      'p',
      { class: 'summary' },
      'Approval ',
      badge(merchant.approval),
      ' · API ',
      badge(merchant.enabled ? 'enabled' : 'disabled'),
      ' · updates by itself every few seconds',
    ),
    region,
  );
  ctx.poll(load);
}
