/**
 * The one list of webhook event types. The docs (docs/webhooks.md), the OpenAPI `webhooks` section
 * (openapi.ts) and the tests all read it; an emitter whose type is not here is a bug.
 */
import type { InvoiceStatus } from '../db/schema.js';
import { PAYOUT_STATUSES } from '../payouts/schema.js';

/** Every invoice status, in the order of its life (matches InvoiceStatus in src/db/schema.ts). */
export const INVOICE_STATUSES = [
  'created',
  'seen',
  'confirmed',
  'underpaid',
  'expired',
  'paid_late',
  'settled',
] as const satisfies readonly InvoiceStatus[];

export const DEPOSIT_EVENT_STATUSES = ['seen', 'confirmed'] as const;

export const EVENT_TYPES = [
  ...INVOICE_STATUSES.map((s) => `invoice.${s}` as const),
  ...DEPOSIT_EVENT_STATUSES.map((s) => `deposit.${s}` as const),
  ...PAYOUT_STATUSES.map((s) => `payout.${s}` as const),
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The resource an event's `data` carries. */
export type EventResource = 'Invoice' | 'Deposit' | 'Payout';

export function resourceOf(type: EventType): EventResource {
  if (type.startsWith('invoice.')) return 'Invoice';
  if (type.startsWith('deposit.')) return 'Deposit';
  return 'Payout';
}

export function isEventType(type: string): type is EventType {
  return (EVENT_TYPES as readonly string[]).includes(type);
}

/** The test event `webhook test` sends; not part of any merchant's ordered stream. */
export const TEST_EVENT_TYPE = 'webhook.test';
