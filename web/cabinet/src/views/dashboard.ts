// The dashboard: balances, the latest invoices and payouts, failed webhook deliveries. It polls.
import { get } from '../api';
import { badge, h, link, table, time, type Child } from '../dom';
import type { InvoiceItem, PayoutItem, ViewContext } from '../types';

export const invoiceRow = (merchantId: string, i: InvoiceItem): Child[] => [
  link(`#/m/${merchantId}/invoices/${i.invoice_id}`, i.order_id),
  badge(i.status),
  `${i.amount_requested} ${i.asset}`,
  `${i.amount_received} ${i.asset}`,
  time(i.created_at),
];
export const INVOICE_COLUMNS = ['Order', 'Status', 'Requested', 'Received', 'Created'];

export const payoutRow = (merchantId: string, p: PayoutItem): Child[] => [
  link(`#/m/${merchantId}/payouts/${p.payout_id}`, p.reference),
  badge(p.status),
  `${p.amount} ${p.asset}`,
  h('code', {}, p.to_address),
  time(p.created_at),
];
export const PAYOUT_COLUMNS = ['Reference', 'Status', 'Amount', 'To', 'Created'];

export async function dashboardView(ctx: ViewContext): Promise<void> {
  const { params, merchant, merchantId } = ctx;
  const region = h('div', { class: 'stack' });
  let last = '';
  const load = async () => {
    const [balances, invoices, payouts, failed] = await Promise.all([
      get('/cabinet/v1/merchants/{merchant_id}/balances', params),
      get('/cabinet/v1/merchants/{merchant_id}/invoices', params, { limit: 5 }),
      get('/cabinet/v1/merchants/{merchant_id}/payouts', params, { limit: 5 }),
      get('/cabinet/v1/merchants/{merchant_id}/deliveries', params, { status: 'failed', limit: 5 }),
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
          invoices.data.map((i) => invoiceRow(merchantId, i)),
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
          payouts.data.map((p) => payoutRow(merchantId, p)),
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
            link(`#/m/${merchantId}/deliveries/${d.delivery_id}`, d.event_id),
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
