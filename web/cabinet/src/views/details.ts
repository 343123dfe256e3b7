// One invoice and one payout: detail views that poll and redraw only what changed.
import { get } from '../api';
import { announce, badge, fields, h, nodes, numeric, table, type Child } from '../../../shared/dom';
import { amount, assetName, chainRef, copyButton, price, when } from '../../../shared/format';
import { AWAITING, statusBadges, tokenAmount } from './rows';
import { kindWords, outcome } from './exceptions';
import { invoiceRefunds } from './refunds';
import type { Invoice, Payout, ViewContext } from '../types';

/** A page invoice's terms: its price, what it is for, the link the customer pays on. */
function pageTerms(i: Invoice): Array<[string, Child]> {
  if (i.price === null) return [];
  return [
    ['Price', price(i.price, i.price_currency ?? 'USD')],
    ['Description', i.description ?? '—'],
    [
      'Payment page',
      i.checkout_url ? [h('code', {}, i.checkout_url), ' ', copyButton(i.checkout_url, 'the link')] : '—',
    ],
  ];
}

/** The token and the amounts; one line of words while the customer has not chosen a token. */
function payment(i: Invoice): Array<[string, Child]> {
  const { asset, address, fees } = i;
  if (i.awaiting_choice || asset === null || address === null || fees === null) return [['Token', AWAITING]];
  return [
    ['Asset', assetName(asset)],
    ['Deposit address', chainRef('address', address)],
    ['Requested', tokenAmount(i.amount_requested, asset)],
    ['Expected from the customer', tokenAmount(i.amount_expected, asset)],
    ['Received', tokenAmount(i.amount_received, asset)],
    ['Credited to the balance', tokenAmount(i.amount_credited, asset)],
    [
      'Service fee',
      h(
        'span',
        {},
        amount(fees.service.amount, asset),
        ` (${fees.service.percent} %, paid by the ${fees.service.payer})`,
      ),
    ],
  ];
}

/** What did not go as planned with this invoice (open and resolved); nothing when all did. */
function exceptionsOf(i: Invoice): Child[] {
  const list = i.exceptions ?? [];
  if (list.length === 0) return [];
  return [
    h('h2', { id: 'exceptions-h' }, 'Exceptions'),
    table(
      'Exceptions of this invoice, oldest first',
      ['What', numeric('Amount'), 'When', 'Resolution'],
      list.map((e) => [kindWords(e.kind), amount(e.amount, e.asset), when(e.created_at), outcome(e)]),
    ),
  ];
}

/** Deposits of another token to the invoice's address: credited on their own, not to the invoice. */
function foreignDeposits(i: Invoice): Child[] {
  const list = i.foreign_deposits ?? [];
  if (list.length === 0) return [];
  return [
    h('h2', { id: 'foreign-h' }, 'Deposits of another token'),
    h('p', { class: 'hint' }, 'Credited to the balance of their own token; they do not pay this invoice.'),
    table(
      'Deposits of another token to this address, in chain order',
      ['Asset', numeric('Amount'), 'Transaction', 'Status', 'Block time'],
      list.map((d) => [
        assetName(d.asset),
        amount(d.amount, d.asset),
        chainRef('transaction', d.tx_hash, { short: true }),
        badge(d.status),
        when(d.block_time),
      ]),
    ),
  ];
}

function invoiceContent(i: Invoice): Child[] {
  return [
    fields([
      ['Status', statusBadges(i)],
      ['Order', i.order_id],
      ['Invoice id', h('code', {}, i.invoice_id)],
      ...pageTerms(i),
      ...payment(i),
      ['User', i.external_user_id],
      ['Expires', when(i.expires_at)],
      ['Created', when(i.created_at)],
    ]),
    h('h2', { id: 'deposits-h' }, 'Deposits'),
    table(
      'Deposits of this invoice, in chain order',
      ['Transaction', 'Paid from', numeric('Amount'), 'Confirmations', 'Status', 'Block time', 'Late'],
      i.deposits.map((d) => [
        chainRef('transaction', d.tx_hash, { short: true }),
        d.from_address ? chainRef('address', d.from_address, { short: true }) : 'unknown',
        tokenAmount(d.amount, i.asset),
        String(d.confirmations),
        badge(d.status),
        when(d.block_time),
        d.late ? 'yes' : 'no',
      ]),
      'none seen yet.',
    ),
    ...exceptionsOf(i),
    ...foreignDeposits(i),
    h('h2', { id: 'history-h' }, 'Status history'),
    table(
      'Every status of this invoice, oldest first',
      ['Status', 'Since', 'How'],
      i.status_history.map((s) => [
        badge(s.status),
        // Steps of one payment can be seconds apart: the history shows the seconds.
        when(s.at, '—', { seconds: true }),
        s.derived ? 'derived from the deposits and the clock' : 'recorded',
      ]),
      'none recorded.',
    ),
  ];
}

/** What the payout's transaction row says when there is no transaction. */
function noTransaction(p: Payout): string {
  if (p.status === 'rejected') return 'none: the operator rejected the payout';
  if (p.status === 'failed') return 'none: the payout failed before a transaction was sent';
  if (p.status === 'pending_review') return 'none yet: the payout waits for the operator’s review';
  return 'not sent yet';
}

/** Why the operator rejected or held the payout, or why it failed: in their words. */
function reasons(p: Payout): Array<[string, Child]> {
  const rows: Array<[string, Child]> = [];
  if (p.reject_reason) rows.push(['Rejected because', h('strong', {}, p.reject_reason)]);
  if (p.fail_reason) rows.push(['Failed because', h('strong', {}, p.fail_reason)]);
  if (p.hold_reason) rows.push(['Held because', h('strong', {}, p.hold_reason)]);
  return rows;
}

function payoutContent(p: Payout): Child[] {
  return [
    fields([
      ['Status', badge(p.status)],
      ['Reference', p.reference],
      ['Payout id', h('code', {}, p.payout_id)],
      ['Amount', amount(p.amount, p.asset)],
      ['Asset', assetName(p.asset)],
      ['To', chainRef('address', p.to_address)],
      ['Payout fee', h('span', {}, amount(p.fees.network.amount, p.asset), ` (charged ${p.fees.network.charged})`)],
      ['Review reasons', p.review_reasons.length ? p.review_reasons.join(', ').replace(/_/g, ' ') : 'none'],
      ...reasons(p),
      ['Transaction', p.tx_hash ? chainRef('transaction', p.tx_hash) : noTransaction(p)],
      ['Created', when(p.created_at)],
      ['Updated', when(p.updated_at)],
    ]),
  ];
}

/** A detail view that asks again every few seconds and redraws only what changed. */
async function polledDetail<T>(
  ctx: ViewContext,
  title: string,
  read: () => Promise<T>,
  content: (r: T) => Child[],
  /** What follows the polled part, drawn once from the first read (a form must not be redrawn). */
  after?: (r: T) => Child,
) {
  const region = h('div', { class: 'stack' });
  let first: T | null = null;
  let last = '';
  const load = async () => {
    const record = await read();
    first ??= record;
    const text = JSON.stringify(record);
    if (text === last) return;
    const before = last;
    last = text;
    region.replaceChildren(...nodes(content(record)));
    // A new status is said aloud (the region itself stays quiet: it redraws whole tables).
    const status = (record as { status?: string }).status;
    if (before && status && JSON.parse(before).status !== status) announce(`${title} ${status.replace(/_/g, ' ')}.`);
  };
  await load();
  ctx.show(title, region, first && after ? after(first) : null);
  ctx.poll(load);
}

export function invoiceView(ctx: ViewContext): Promise<void> {
  const params = { ...ctx.params, invoice_id: ctx.id ?? '' };
  return polledDetail(
    ctx,
    'Invoice',
    () => get('/cabinet/v1/merchants/{merchant_id}/invoices/{invoice_id}', params),
    invoiceContent,
    // A page invoice still waiting for the customer's token has received nothing to refund.
    (i) => (i.awaiting_choice ? null : invoiceRefunds(ctx, i)),
  );
}

export function payoutView(ctx: ViewContext): Promise<void> {
  const params = { ...ctx.params, payout_id: ctx.id ?? '' };
  return polledDetail(
    ctx,
    'Payout',
    () => get('/cabinet/v1/merchants/{merchant_id}/payouts/{payout_id}', params),
    payoutContent,
  );
}
