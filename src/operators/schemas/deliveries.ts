/** Console schemas of webhook deliveries: the fields of `webhook deliveries|show|resend --json`. */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.js';
import { DELIVERY_STATUSES } from '../../webhooks/service.js';
import { Nullable, PageQuery, Time, Uuid } from './common.js';

export const DeliverySchema = Type.Object(
  {
    delivery_id: Type.String({ description: 'dlv_…' }),
    event_id: Type.String({ description: 'evt_…, the webhook-id header' }),
    merchant_id: Uuid('The merchant'),
    merchant_seq: Type.Integer({ description: "The event's number among its merchant's events" }),
    type: Type.String({ description: 'The event type, e.g. invoice.settled' }),
    status: StringEnum(DELIVERY_STATUSES),
    attempts: Type.Integer(),
    next_attempt_at: Nullable(Time()),
    last_attempt_at: Nullable(Time()),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    created_at: Time(),
    updated_at: Time(),
  },
  { additionalProperties: false, title: 'Delivery' },
);

export const DeliveryDetailsSchema = Type.Object(
  {
    ...DeliverySchema.properties,
    attempts_log: Type.Array(
      Type.Object(
        {
          attempt: Type.Integer(),
          at: Time(),
          url: Type.String(),
          status_code: Nullable(Type.Integer()),
          duration_ms: Type.Number(),
          outcome: Type.String(),
          error: Nullable(Type.String()),
          response_excerpt: Nullable(Type.String()),
        },
        { additionalProperties: false, title: 'DeliveryAttempt' },
      ),
    ),
  },
  { additionalProperties: false, title: 'DeliveryDetails' },
);

export const DeliveryListQuery = Type.Object(
  {
    merchant_id: Type.Optional(Uuid('Only deliveries of this merchant')),
    status: Type.Optional(StringEnum(DELIVERY_STATUSES, 'Only deliveries in this status')),
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const DeliveryParams = Type.Object(
  {
    delivery_id: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The delivery (dlv_…); reading also takes its event id (evt_…)',
    }),
  },
  { additionalProperties: false },
);
