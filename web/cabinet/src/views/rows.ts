// The rows of the invoice and payout tables (lists and dashboard alike).
import { badge, h, link, numeric, type Child, type Column } from '../../../shared/dom';
import { amount, chainRef, price, when } from '../../../shared/format';
import { less } from '../../../shared/money';
import type { InvoiceItem, PayoutItem } from '../types';

/** A table cell holding an amount: right-aligned by the `num` class of its column. */
export const num = (value: string, asset: string): HTMLElement => amount(value, asset);

/** What a page invoice says where a token and amounts go while its customer has not picked one. */
export const AWAITING = 'Awaiting the customer’s choice';

/** An amount in the invoice's token, or the words for a page invoice whose token is not chosen yet. */
export const tokenAmount = (value: string | null, asset: string | null): Child =>
  value !== null && asset !== null ? amount(value, asset) : h('span', { class: 'hint' }, AWAITING);

/** What the invoice asks: a page invoice's price in dollars, else the amount in its token. */
const requested = (i: InvoiceItem): Child =>
  i.price !== null ? price(i.price) : tokenAmount(i.amount_requested, i.asset);

/** The status, and a warning beside it when more arrived than was asked (the owner may owe a refund). */
export function statusBadges(i: Pick<InvoiceItem, 'status' | 'amount_requested' | 'amount_received'>): Child {
  const over = i.amount_requested !== null && i.amount_received !== null && less(i.amount_requested, i.amount_received);
  return over ? h('span', { class: 'badges' }, badge(i.status), ' ', badge('overpaid')) : badge(i.status);
}

export const INVOICE_COLUMNS: Column[] = ['Order', 'Status', numeric('Requested'), numeric('Received'), 'Created'];
export const invoiceRow = (merchantId: string, i: InvoiceItem): Child[] => [
  [
    link(`#/m/${merchantId}/invoices/${i.invoice_id}`, i.order_id),
    i.description ? h('span', { class: 'hint line' }, i.description) : null,
  ],
  statusBadges(i),
  requested(i),
  tokenAmount(i.amount_received, i.asset),
  when(i.created_at),
];

export const PAYOUT_COLUMNS: Column[] = ['Reference', 'Status', numeric('Amount'), 'To', 'Created'];
export const payoutRow = (merchantId: string, p: PayoutItem): Child[] => [
  link(`#/m/${merchantId}/payouts/${p.payout_id}`, p.reference),
  badge(p.status),
  num(p.amount, p.asset),
  chainRef('address', p.to_address, { short: true }),
  when(p.created_at),
];

export const code = (text: string): HTMLElement => h('code', {}, text);
