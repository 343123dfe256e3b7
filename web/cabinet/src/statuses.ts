// The statuses a list can be filtered by, as compile-time constants: each table must name exactly
// the values of the served document's `status` filter (a value added or removed on the server
// fails the build), so the page never downloads the API document to learn them.
import type { QueryOf } from './api';

export type InvoiceStatus = NonNullable<QueryOf<'get', '/cabinet/v1/merchants/{merchant_id}/invoices'>['status']>;
export type PayoutStatus = NonNullable<QueryOf<'get', '/cabinet/v1/merchants/{merchant_id}/payouts'>['status']>;

const INVOICE: Record<InvoiceStatus, true> = {
  created: true,
  seen: true,
  confirmed: true,
  underpaid: true,
  expired: true,
  paid_late: true,
  settled: true,
};
const PAYOUT: Record<PayoutStatus, true> = {
  pending_review: true,
  approved: true,
  queued: true,
  signing: true,
  broadcast: true,
  confirmed: true,
  rejected: true,
  failed: true,
};

export const INVOICE_STATUSES = Object.keys(INVOICE) as InvoiceStatus[];
export const PAYOUT_STATUSES = Object.keys(PAYOUT) as PayoutStatus[];
