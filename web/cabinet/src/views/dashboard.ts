// The dashboard: balances, the latest invoices and payouts, webhook health. It polls.
import { get } from '../api';
import { badge, h, link, numeric, table, type Child } from '../../../shared/dom';
import { amount, assetName, when } from '../../../shared/format';
import type { DeliveryPage, ViewContext } from '../types';
import { canChange } from '../roles';
import { subjectLink } from './deliveries';
import { receivedChart } from './chart';
import { INVOICE_COLUMNS, invoiceRow, PAYOUT_COLUMNS, payoutRow } from './rows';

const section = (id: string, title: string, ...content: Child[]) =>
  h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...content);

/** One 30-day chart per asset; the summary lists each asset's days together, oldest first. */
function dailyCharts(daily: { date: string; asset: string; amount: string }[]): HTMLElement[] {
  const perAsset = new Map<string, { day: string; amount: string }[]>();
  for (const d of daily) {
    const days = perAsset.get(d.asset) ?? [];
    perAsset.set(d.asset, days);
    days.push({ day: d.date, amount: d.amount });
  }
  return [...perAsset.entries()].map(([asset, days]) => receivedChart(asset, days));
}

/**
 * Webhook health: deliveries that gave up, and those still retrying after a refused attempt (an
 * endpoint refusing every attempt for minutes is a problem now, not after the last retry).
 */
function webhookHealth(merchantId: string, failed: DeliveryPage, pending: DeliveryPage): HTMLElement {
  const retrying = pending.data;
  const answer = (d: DeliveryPage['data'][number]) =>
    d.last_error ?? (d.last_status_code ? `HTTP ${d.last_status_code}` : '—');
  const rows = [...failed.data, ...retrying].map((d) => [
    link(`#/m/${merchantId}/deliveries/${d.delivery_id}`, d.event_id),
    badge(d.retrying ? 'retrying' : d.status),
    d.type,
    subjectLink(merchantId, d.subject),
    String(d.attempts),
    answer(d),
    when(d.created_at),
  ]);
  const warning =
    retrying.length > 0 || failed.data.length > 0
      ? h(
          'p',
          { class: 'warning', role: 'note' },
          retrying.length > 0
            ? `Your webhook endpoint is refusing deliveries: ${retrying.length}${pending.next_cursor ? '+' : ''} still retrying (last answer: ${answer(retrying[0] as DeliveryPage['data'][number])}).`
            : '',
          failed.data.length > 0
            ? ` ${failed.data.length}${failed.next_cursor ? '+' : ''} gave up; the operator can resend them.`
            : '',
        )
      : null;
  return section(
    'webhooks-h',
    'Webhook deliveries',
    warning,
    table(
      'Deliveries failed or retrying',
      ['Event', 'Status', 'Type', 'About', 'Attempts', 'Last answer', 'Created'],
      rows,
      'none failed or retrying.',
    ),
  );
}

/** How many exceptions wait for the owner, linked to their list; nothing when none do. */
function attention(merchantId: string, open: number): HTMLElement | string {
  if (open <= 0) return '';
  const words = open === 1 ? '1 exception needs attention' : `${open} exceptions need attention`;
  return h(
    'p',
    { class: 'warning', role: 'note' },
    link(`#/m/${merchantId}/exceptions`, words),
    ': payments that came short, over, late or in another token.',
  );
}

export async function dashboardView(ctx: ViewContext): Promise<void> {
  const { params, merchant, merchantId } = ctx;
  const region = h('div', { class: 'stack' });
  let last = '';
  const load = async () => {
    const [balances, invoices, payouts, failed, pending, summary] = await Promise.all([
      get('/cabinet/v1/merchants/{merchant_id}/balances', params),
      get('/cabinet/v1/merchants/{merchant_id}/invoices', params, { limit: 5 }),
      get('/cabinet/v1/merchants/{merchant_id}/payouts', params, { limit: 5 }),
      get('/cabinet/v1/merchants/{merchant_id}/deliveries', params, { status: 'failed', limit: 5 }),
      get('/cabinet/v1/merchants/{merchant_id}/deliveries', params, { status: 'retrying', limit: 20 }),
      get('/cabinet/v1/merchants/{merchant_id}/summary', params),
    ]);
    const text = JSON.stringify([balances, invoices, payouts, failed, pending, summary]);
    // Unchanged data leaves the page alone (and the reader's focus where it is).
    if (text === last) return;
    last = text;
    region.replaceChildren(
      attention(merchantId, summary.open_exceptions),
      section(
        'totals-h',
        'Received',
        table(
          'Confirmed deposits per asset (today: since midnight UTC; pending: seen, not yet confirmed)',
          ['Asset', numeric('Today'), numeric('7 days'), numeric('30 days'), numeric('Pending')],
          summary.assets.map((a) => [
            assetName(a.asset),
            amount(a.received_today, a.asset),
            amount(a.received_7d, a.asset),
            amount(a.received_30d, a.asset),
            amount(a.pending, a.asset),
          ]),
          'nothing received yet.',
        ),
        ...dailyCharts(summary.daily),
      ),
      section(
        'balances-h',
        'Balances',
        table(
          'Balance per asset',
          ['Asset', numeric('Available'), numeric('Reserved for payouts'), numeric('Total')],
          balances.balances.map((b) => [
            assetName(b.asset),
            amount(b.available, b.asset),
            amount(b.reserved, b.asset),
            amount(b.total, b.asset),
          ]),
          'no money booked yet.',
        ),
      ),
      webhookHealth(merchantId, failed, pending),
      section(
        'invoices-h',
        'Latest invoices',
        table(
          'The five newest invoices',
          INVOICE_COLUMNS,
          invoices.data.map((i) => invoiceRow(merchantId, i)),
          'none yet.',
        ),
      ),
      section(
        'payouts-h',
        'Latest payouts',
        table(
          'The five newest payouts',
          PAYOUT_COLUMNS,
          payouts.data.map((p) => payoutRow(merchantId, p)),
          'none yet.',
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
      canChange(merchant) ? null : ' · You are a viewer: you read, the owners change.',
    ),
    region,
  );
  ctx.poll(load);
}
