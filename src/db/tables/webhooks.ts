/** Row types of the webhooks feature's own tables (migration 0034), joined into DB in ../schema.ts. */
import type { Generated } from 'kysely';

/** A merchant's endpoint: one per merchant. Secrets are `whsec_…` text (they must sign, so not hashed). */
export interface WebhookEndpointsTable {
  merchant_id: string;
  url: string;
  secret: string;
  /** The secret before the last rotation; it keeps signing until previous_secret_until. */
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** 1: the operator allowed http and private, loopback and link-local targets for this merchant. */
  allow_private: number;
  created_at: string;
  updated_at: string;
}

/** The per-merchant event counter: `events.merchant_seq` is taken from it in the event's transaction. */
export interface MerchantEventSequencesTable {
  merchant_id: string;
  last_seq: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  /** dlv_… */
  id: string;
  event_id: string;
  merchant_id: string;
  /** The event's merchant_seq: deliveries of a merchant go out in this order. */
  merchant_seq: number;
  status: DeliveryStatus;
  /** Attempts in all; window_attempts: in the current retry window (the backoff step). */
  attempts: number;
  window_attempts: number;
  /** Start of the current retry window (first attempt, or the operator's resend); null before. */
  window_started_at: string | null;
  next_attempt_at: string;
  /** Worker lease grant (holder#token) that claimed the delivery for an attempt, until claimed_until. */
  claimed_by: string | null;
  claimed_until: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export type AttemptOutcome = 'delivered' | 'retry' | 'failed';

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  merchant_id: string;
  /** 1-based number of the attempt within its delivery. */
  attempt: number;
  at: string;
  url: string;
  /** Null when no HTTP response came (network error, timeout, refused target). */
  status_code: number | null;
  duration_ms: number;
  outcome: AttemptOutcome;
  error: string | null;
  response_excerpt: string | null;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  merchant_event_sequences: MerchantEventSequencesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
