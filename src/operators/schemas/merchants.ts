/** Console schemas of merchants: the fields of `merchant show|list|create|update … --json`. */
import { Type } from '@sinclair/typebox';
import { DISPLAY_TEXT_PATTERN, DisabledBy, StringEnum } from '../../http/schemas.js';
import { Nullable, Time, Uuid } from './common.js';

const Url = (description: string) => Type.String({ maxLength: 2000, description });

export const MerchantSchema = Type.Object(
  {
    merchant_id: Uuid('The merchant'),
    name: Type.String(),
    address_mode: StringEnum(['per_invoice', 'per_user']),
    approval: StringEnum(['pending', 'approved', 'rejected']),
    enabled: Type.Boolean({
      description:
        "Neither the operator's switch nor the owner's is off; false: its API keys answer 403 merchant_disabled",
    }),
    disabled_by: DisabledBy,
    site_url: Nullable(Type.String()),
    return_url: Nullable(Type.String()),
    cancel_url: Nullable(Type.String()),
    legacy_network_fee_payer: Nullable(StringEnum(['customer'])),
    confirmations: Nullable(Type.Integer(), 'Confirmations policy; null: the CONFIRMATIONS default'),
    created_at: Time(),
    updated_at: Time(),
  },
  { additionalProperties: false, title: 'Merchant' },
);

export const MerchantDetailsSchema = Type.Object(
  {
    ...MerchantSchema.properties,
    payout_auto_approve_limit: Type.String({
      description: 'Payouts above this amount go to review; "none" for no limit',
    }),
    payout_daily_limit: Type.String({
      description: 'Payouts of one asset in a UTC day above this total go to review; "none" for no limit',
    }),
  },
  { additionalProperties: false, title: 'MerchantDetails' },
);

export const CreateMerchantBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: DISPLAY_TEXT_PATTERN,
      description: 'Display name, shown to customers: no control or bidirectional control characters',
    }),
    address_mode: Type.Optional(
      StringEnum(['per_invoice', 'per_user'], 'A fresh address per invoice (default), or one per external user'),
    ),
    site_url: Type.Optional(Url("The merchant's site (allowed origin for return and cancel URLs)")),
    return_url: Type.Optional(Url('Allowed origin for return_url')),
    cancel_url: Type.Optional(Url('Allowed origin for cancel_url')),
    legacy_network_fee_payer: Type.Optional(
      StringEnum(['customer'], 'Legacy setting: the customer pays the network fee (invoices are then refused)'),
    ),
  },
  { additionalProperties: false, title: 'CreateMerchantRequest' },
);

export const UpdateMerchantBody = Type.Object(
  {
    site_url: Type.Optional(Nullable(Url('The merchant\'s site; null or "" clears it'))),
    return_url: Type.Optional(Nullable(Url('Allowed origin for return_url; null or "" clears it'))),
    cancel_url: Type.Optional(Nullable(Url('Allowed origin for cancel_url; null or "" clears it'))),
    confirmations: Type.Optional(
      Nullable(
        Type.Integer({ minimum: 1, maximum: 1000 }),
        'Confirmations before a deposit counts; null restores the CONFIRMATIONS default',
      ),
    ),
    payout_auto_approve_limit: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Payouts above this amount (units of the payout asset) go to review; "none" for no limit',
      }),
    ),
    payout_daily_limit: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Payouts of one asset in a UTC day above this total go to review; "none" for no limit',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, title: 'UpdateMerchantRequest' },
);

export const MerchantAssetBody = Type.Object(
  { payments: Type.Boolean({ description: 'Receiving this asset: on (true) or off (false)' }) },
  { additionalProperties: false, title: 'MerchantAssetRequest' },
);

export const MerchantAssetSchema = Type.Object(
  { merchant_id: Uuid('The merchant'), asset: Type.String(), payments: Type.Boolean() },
  { additionalProperties: false, title: 'MerchantAsset' },
);

export const WebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000, description: 'https URL that receives the events' }),
    rotate_secret: Type.Optional(
      Type.Boolean({ description: 'Make a new secret; the current one keeps signing for 24 h' }),
    ),
    allow_private: Type.Optional(
      Type.Boolean({
        description:
          'Allow http and private, loopback and link-local targets for this URL (an internal receiver); give it again with every change',
      }),
    ),
  },
  { additionalProperties: false, title: 'WebhookEndpointRequest' },
);

export const WebhookEndpointSchema = Type.Object(
  {
    merchant_id: Uuid('The merchant'),
    url: Type.String(),
    allow_private: Type.Boolean(),
    secret: Nullable(
      Type.String(),
      'The signing secret (whsec_…), only when one was made by this request (first set or rotation); shown once',
    ),
    previous_secret_until: Nullable(Time(), 'Until when the previous secret still signs (after a rotation)'),
    created_at: Time(),
    updated_at: Time(),
  },
  { additionalProperties: false, title: 'WebhookEndpoint' },
);

export const WebhookTestSchema = Type.Object(
  {
    event_id: Type.String(),
    url: Type.String(),
    status_code: Nullable(Type.Integer(), "The receiver's HTTP status; null when no answer came"),
    duration_ms: Type.Number(),
    error: Nullable(Type.String(), 'Why no answer came (refused target, timeout, network error)'),
    response_excerpt: Nullable(Type.String(), "The start of the receiver's answer"),
  },
  { additionalProperties: false, title: 'WebhookTestResult' },
);
