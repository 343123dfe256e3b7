/**
 * A webhook delivery and its attempts as the operator sees them (`paygate webhook …`, the console);
 * the cabinet shows the same without the merchant's fields.
 */
import type { DeliveryStatus } from '../db/tables/webhooks.js';
import type { AttemptRow, DeliveryRow } from './store.js';

export interface DeliveryView {
  delivery_id: string;
  event_id: string;
  merchant_id: string;
  merchant_seq: number;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface AttemptView {
  attempt: number;
  at: string;
  url: string;
  status_code: number | null;
  duration_ms: number;
  outcome: AttemptRow['outcome'];
  error: string | null;
  response_excerpt: string | null;
}

export function deliveryView(d: DeliveryRow, type: string): DeliveryView {
  return {
    delivery_id: d.id,
    event_id: d.event_id,
    merchant_id: d.merchant_id,
    merchant_seq: d.merchant_seq,
    type,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
    last_attempt_at: d.last_attempt_at,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

export function attemptView(a: AttemptRow): AttemptView {
  return {
    attempt: a.attempt,
    at: a.at,
    url: a.url,
    status_code: a.status_code,
    duration_ms: a.duration_ms,
    outcome: a.outcome,
    error: a.error,
    response_excerpt: a.response_excerpt,
  };
}
