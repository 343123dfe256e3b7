/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event type of event-types.ts, each a POST
 * whose body is {id, type, created_at, data} with data the Invoice, Deposit or Payout object (the
 * same TypeBox schemas that describe the /v1 responses) and the three Standard Webhooks headers.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { DepositSchema, InvoiceSchema } from '../invoices/schema.js';
import { PayoutSchema } from '../payouts/schema.js';
import { EVENT_TYPES, resourceOf, type EventResource, type EventType } from './event-types.js';

/** A standalone deposit (permanent address, no invoice): the Deposit object with where it arrived. */
export const StandaloneDepositSchema = Type.Object(
  {
    // The emitter (deposits/view.ts standaloneDepositView) sends it: without it here this
    // additionalProperties:false schema refused every deposit.* body the service sends.
    deposit_id: Type.String({
      format: 'uuid',
      description:
        'The deposit: the same in its deposit.seen and deposit.confirmed events (tx_hash alone is not unique: one transaction can pay twice)',
    }),
    ...DepositSchema.properties,
    address: Type.String({ description: 'The deposit address that received it' }),
    asset: Type.String(),
    external_user_id: Type.Union([Type.String(), Type.Null()], {
      description: "The merchant's user the permanent address belongs to",
    }),
  },
  { additionalProperties: false, title: 'Deposit' },
);

const RESOURCE_SCHEMA: Record<EventResource, TSchema> = {
  Invoice: InvoiceSchema,
  Deposit: StandaloneDepositSchema,
  Payout: PayoutSchema,
};

const DESCRIPTION: Record<EventResource, string> = {
  Invoice: 'An invoice entered this status; data is the Invoice as GET /v1/invoices/{id} shows it at that moment.',
  Deposit:
    'A deposit to a permanent address (no invoice) was seen on chain or reached its confirmations; data is the Deposit.',
  Payout: 'A payout entered this status; data is the Payout as GET /v1/payouts/{id} shows it at that moment.',
};

const header = (name: string, description: string, pattern?: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', ...(pattern ? { pattern } : {}) },
});

export const WEBHOOK_HEADERS = [
  header('webhook-id', 'The event id (evt_…): the same on every retry; deduplicate on it', '^evt_[0-9a-f]{24}$'),
  header(
    'webhook-timestamp',
    'Unix seconds of this attempt; refuse it when more than 300 s from your clock',
    '^[0-9]+$',
  ),
  header(
    'webhook-signature',
    'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` (two during a secret rotation)',
  ),
];

/** Plain JSON (TypeBox schemas carry symbol keys that a JSON document must not). */
const plain = (s: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(s)) as Record<string, unknown>;

function eventBodySchema(type: EventType): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'type', 'created_at', 'data'],
    properties: {
      id: { type: 'string', description: 'The event id, equal to the webhook-id header' },
      type: { type: 'string', const: type },
      created_at: {
        type: 'string',
        format: 'date-time',
        description: 'When the change happened (not when it was delivered)',
      },
      data: plain(RESOURCE_SCHEMA[resourceOf(type)]),
    },
  };
}

export function openApiWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary: type,
          description: `${DESCRIPTION[resourceOf(type)]} Signed per Standard Webhooks (see docs/webhooks.md).`,
          parameters: WEBHOOK_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: eventBodySchema(type) } } },
          responses: {
            '200': {
              description:
                'Any 2xx acknowledges the event. 408, 429 (Retry-After honoured), 5xx and network errors are retried for 3 days; any other status fails the delivery at once.',
            },
          },
        },
      },
    ]),
  );
}
