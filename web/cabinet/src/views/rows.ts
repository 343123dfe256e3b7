// The rows of the invoice and payout tables (lists and dashboard alike).
import { badge, h, link, numeric, type Child, type Column } from '../../../shared/dom';
import { amount, chainRef, when } from '../../../shared/format';
import type { InvoiceItem, PayoutItem } from '../types';

/** A table cell holding an amount: right-aligned by the `num` class of its column. */
export const num = (value: string, asset: string): HTMLElement => amount(value, asset);

export const INVOICE_COLUMNS: Column[] = ['Order', 'Status', numeric('Requested'), numeric('Received'), 'Created'];
export const invoiceRow = (merchantId: string, i: InvoiceItem): Child[] => [
  link(`#/m/${merchantId}/invoices/${i.invoice_id}`, i.order_id),
  badge(i.status),
  num(i.amount_requested, i.asset),
  num(i.amount_received, i.asset),
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
