/** TypeBox schemas of /cabinet/v1: they validate requests and generate its OpenAPI document. */
import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../http/pagination.js';
import { AssetCode, DisabledBy, PrintableId, StringEnum, Uuid } from '../http/schemas.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../owners/service.js';
import { PAYOUT_STATUSES } from '../payouts/schema.js';
import { PERIOD_DESCRIPTIONS } from './period.js';
import { WebhookEndpointSchema } from './schema-settings.js';

const DateTime = (description: string) => Type.String({ format: 'date-time', description });
const Token43 = (description: string) =>
  Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$', description });

// Sessions and the account.

export const SetupBody = Type.Object(
  {
    setup_token: Token43('The token of the setup link (after `#setup=`)'),
    password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX, description: 'The new password' }),
  },
  { additionalProperties: false, title: 'AccountSetupRequest' },
);

export const SessionBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254, description: 'The email the operator gave the account' }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
    totp: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 10,
        description: "The authenticator's code, when the second factor is on",
      }),
    ),
    recovery_code: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        description:
          'Instead of `totp`: one of the recovery codes handed out at enrolment, each accepted once (case, spaces and dashes do not matter)',
      }),
    ),
  },
  { additionalProperties: false, title: 'SessionRequest' },
);

export const SessionQuery = Type.Object(
  {
    transport: Type.Optional(
      StringEnum(
        ['bearer', 'cookie'],
        '`bearer` (default): the token is in the answer, for `Authorization: Bearer`. `cookie` (the web page): the token goes into an HttpOnly cookie and the answer carries the CSRF token instead',
      ),
    ),
  },
  { additionalProperties: false },
);

export const SessionSchema = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'Bearer token (transport bearer only); shown once' })),
    expires_at: DateTime(
      'When the session ends unless a request comes first (12 h idle; never later than 7 days after sign-in)',
    ),
    csrf_token: Type.Optional(
      Type.String({ description: 'Send as X-CSRF-Token with every change (transport cookie only)' }),
    ),
    second_factor_failures: Type.Optional(
      Type.Object(
        {
          attempts: Type.Integer({ minimum: 1, description: 'Wrong codes given with the right password' }),
          locked_until: Type.Union([DateTime('When the last lock of the second factor ended'), Type.Null()]),
        },
        {
          additionalProperties: false,
          description:
            'Present when wrong second-factor codes came since the previous sign-in: whoever gave them knew the password, so change it',
        },
      ),
    ),
    recovery_codes_left: Type.Optional(
      Type.Integer({ minimum: 0, description: 'After a sign-in with a recovery code: how many are left unused' }),
    ),
  },
  { additionalProperties: false, title: 'Session' },
);

export const CurrentSessionSchema = Type.Object(
  {
    transport: StringEnum(['bearer', 'cookie']),
    expires_at: DateTime(
      'When the session ends unless a request comes first (12 h idle; never later than 7 days after sign-in)',
    ),
    csrf_token: Type.Union([Type.String(), Type.Null()], {
      description: 'Send as X-CSRF-Token with every change; null for a bearer session',
    }),
  },
  { additionalProperties: false, title: 'CurrentSession' },
);

export const MemberRoleSchema = StringEnum(
  ['owner', 'viewer'],
  'owner: everything; viewer: reads, reports and exports only (changes answer 403 role_not_allowed)',
);

const MerchantSummary = Type.Object(
  {
    merchant_id: Uuid('Merchant id'),
    name: Type.String(),
    approval: StringEnum(['pending', 'approved', 'rejected']),
    enabled: Type.Boolean({ description: "Neither the operator's switch nor the owner's is off" }),
    disabled_by: DisabledBy,
    role: MemberRoleSchema,
  },
  { additionalProperties: false, title: 'MerchantSummary' },
);

export const AccountSchema = Type.Object(
  {
    email: Type.String(),
    totp: Type.Boolean({ description: 'The second factor is on: sign-in needs a code' }),
    merchants: Type.Array(MerchantSummary),
  },
  { additionalProperties: false, title: 'Account' },
);

export const TotpEnrolmentSchema = Type.Object(
  {
    secret: Type.String({ description: 'Base32 secret to type into an authenticator app' }),
    otpauth_uri: Type.String({ description: 'The same secret as an otpauth:// URI' }),
  },
  { additionalProperties: false, title: 'TotpEnrolment' },
);

export const TotpConfirmedSchema = Type.Object(
  {
    ...AccountSchema.properties,
    recovery_codes: Type.Array(Type.String(), {
      minItems: 10,
      maxItems: 10,
      description:
        'Ten one-time recovery codes, shown this once (only their digests are kept): each signs in once as `recovery_code` instead of a TOTP code',
    }),
  },
  { additionalProperties: false, title: 'TotpConfirmed' },
);

const CurrentPassword = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: "The account's current password (401 current_password_incorrect otherwise; nothing changes)",
});

export const TotpStartBody = Type.Object(
  { current_password: CurrentPassword },
  { additionalProperties: false, title: 'TotpStartRequest' },
);

export const TotpDisableBody = Type.Object(
  {
    current_password: CurrentPassword,
    code: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "The authenticator's current 6-digit code, or one of the account's unused recovery codes",
    }),
  },
  { additionalProperties: false, title: 'TotpDisableRequest' },
);

export const RecoveryCodesBody = Type.Object(
  { current_password: CurrentPassword },
  { additionalProperties: false, title: 'RecoveryCodesRequest' },
);

export const RecoveryCodesSchema = Type.Object(
  {
    recovery_codes: Type.Array(Type.String(), {
      minItems: 10,
      maxItems: 10,
      description: 'Ten new one-time recovery codes, shown this once; the previous ones no longer sign in',
    }),
  },
  { additionalProperties: false, title: 'RecoveryCodes' },
);

export const TotpConfirmBody = Type.Object(
  { code: Type.String({ pattern: '^[0-9]{6}$', description: "The authenticator's current 6-digit code" }) },
  { additionalProperties: false, title: 'TotpConfirmRequest' },
);

// Merchants.

export const MerchantParams = Type.Object({ merchant_id: Uuid('Merchant id') }, { additionalProperties: false });

export const MerchantAssetSchema = Type.Object(
  {
    asset: Type.String(),
    name: Type.String(),
    payments: Type.Boolean({
      description: "The merchant's own switch: off refuses invoices (asset_disabled_by_merchant)",
    }),
    offered: Type.Boolean({ description: 'The operator receives this asset now (else asset_payments_disabled)' }),
    usd_pegged: Type.Boolean({
      description: 'One token is one dollar: a page invoice (priced in USD) can offer this asset',
    }),
  },
  { additionalProperties: false, title: 'MerchantAsset' },
);

export const MerchantSchema = Type.Object(
  {
    merchant_id: Uuid('Merchant id'),
    name: Type.String(),
    approval: StringEnum(
      ['pending', 'approved', 'rejected'],
      'The operator review: only approved merchants take payments',
    ),
    enabled: Type.Boolean({
      description:
        "Neither the operator's switch nor the owner's is off; false: every API key answers 403 merchant_disabled",
    }),
    disabled_by: DisabledBy,
    address_mode: StringEnum(['per_invoice', 'per_user']),
    settings: Type.Object(
      {
        site_url: Type.Union([Type.String(), Type.Null()]),
        return_url: Type.Union([Type.String(), Type.Null()]),
        cancel_url: Type.Union([Type.String(), Type.Null()]),
        confirmations: Type.Integer({ description: 'Confirmations before an invoice is confirmed' }),
        network_fee_payer: StringEnum(
          ['merchant', 'customer'],
          '`customer` is the legacy setting that makes invoice creation answer 503 network_fee_quote_unavailable',
        ),
      },
      { additionalProperties: false },
    ),
    assets: Type.Array(MerchantAssetSchema),
    payout_limits: Type.Object(
      {
        auto_approve: Type.Union([Type.String(), Type.Null()], {
          description:
            'A payout above this amount (whole units of its asset, decimal text) waits for the operator; null: no limit',
        }),
        daily: Type.Union([Type.String(), Type.Null()], {
          description: "Payouts of a UTC day above this sum per asset wait for the operator's review; null: no limit",
        }),
      },
      { additionalProperties: false, description: "The operator's review limits (read only)" },
    ),
    webhook: Type.Union([WebhookEndpointSchema, Type.Null()], {
      description: 'The webhook endpoint; null while none is set (PUT …/webhook sets it)',
    }),
    created_at: DateTime('When the operator created the merchant'),
  },
  { additionalProperties: false, title: 'Merchant' },
);
export type MerchantSchema = Static<typeof MerchantSchema>;

export const MerchantPatchBody = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({
        description:
          "The owner's switch: false makes every API key answer 403 merchant_disabled; true lifts the owner's stop only, never the operator's",
      }),
    ),
    network_fee_payer: Type.Optional(
      StringEnum(['merchant', 'customer'], '`merchant` clears the legacy setting; `customer` is refused (422)'),
    ),
  },
  { additionalProperties: false, minProperties: 1, title: 'MerchantUpdateRequest' },
);

export const AssetParams = Type.Object(
  { merchant_id: Uuid('Merchant id'), asset: AssetCode },
  { additionalProperties: false },
);

export const AssetSwitchBody = Type.Object(
  { payments: Type.Boolean({ description: 'Receive this asset (true) or refuse new invoices in it (false)' }) },
  { additionalProperties: false, title: 'MerchantAssetRequest' },
);

export const KeyParams = Type.Object(
  { merchant_id: Uuid('Merchant id'), key_id: Type.String({ pattern: '^[0-9a-fA-F]{16}$', description: 'Key id' }) },
  { additionalProperties: false },
);

export const KeySchema = Type.Object(
  {
    key_id: Type.String({ description: 'The public part of the key (sk_<key_id>_…)' }),
    label: Type.Union([Type.String(), Type.Null()], { description: "The operator's name for the key" }),
    status: StringEnum(['active', 'revoked', 'expired']),
    created_at: DateTime('Issued at'),
    expires_at: Type.Union([DateTime('Refused from this moment'), Type.Null()], {
      description: 'Null: the key does not expire',
    }),
    revoked_at: Type.Union([DateTime('Revoked at'), Type.Null()]),
    last_used_at: Type.Union([DateTime('Last authenticated request (recorded at most once a minute)'), Type.Null()], {
      description: 'Null while the key has not been used',
    }),
  },
  { additionalProperties: false, title: 'ApiKey' },
);

// Lists.

const Period = {
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: PERIOD_DESCRIPTIONS.from })),
  to: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: PERIOD_DESCRIPTIONS.to })),
};

const Search = (what: string) =>
  Type.Optional({
    ...PrintableId(`Finds by the start of ${what} (case as stored; ids exactly); at least 3 characters`),
    minLength: 3,
  });
const AssetFilter = Type.Optional({ ...AssetCode, description: 'Only this asset, e.g. USDT_TRON' });

export const InvoiceListQuery = Type.Object(
  {
    status: Type.Optional(
      StringEnum(['created', 'seen', 'confirmed', 'underpaid', 'expired', 'paid_late', 'settled'] as const),
    ),
    asset: AssetFilter,
    q: Search('order id, invoice id, deposit address or the transaction hash of one of its deposits'),
    ...Period,
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const PayoutListQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(PAYOUT_STATUSES)),
    asset: AssetFilter,
    q: Search('reference, payout id, destination address or transaction hash'),
    ...Period,
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const DepositListQuery = Type.Object(
  {
    unattached: Type.Optional(StringEnum(['true', 'false'], 'true: only standalone deposits (not paying an invoice)')),
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const DeliveryListQuery = Type.Object(
  {
    status: Type.Optional(
      StringEnum(
        ['pending', 'retrying', 'delivered', 'failed'] as const,
        '`retrying`: pending deliveries with at least one attempt the endpoint did not accept (a subset of `pending`)',
      ),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const PageOnlyQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

export const InvoiceParams = Type.Object(
  { merchant_id: Uuid('Merchant id'), invoice_id: Uuid('Invoice id') },
  { additionalProperties: false },
);
export const PayoutParams = Type.Object(
  { merchant_id: Uuid('Merchant id'), payout_id: Uuid('Payout id') },
  { additionalProperties: false },
);
export const DeliveryParams = Type.Object(
  {
    merchant_id: Uuid('Merchant id'),
    delivery_id: Type.String({ pattern: '^dlv_[0-9a-f]{24}$', description: 'Delivery id (dlv_…)' }),
  },
  { additionalProperties: false },
);

export const StandaloneDepositSchema = Type.Object(
  {
    deposit_id: Type.String(),
    invoice_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The invoice it pays; null for a standalone deposit',
    }),
    address: Type.String(),
    asset: Type.String(),
    external_user_id: Type.Union([Type.String(), Type.Null()]),
    tx_hash: Type.String(),
    amount: Type.String(),
    confirmations: Type.Integer(),
    status: StringEnum(['seen', 'confirmed']),
    block_time: DateTime('Time of the block holding the deposit'),
    late: Type.Boolean(),
  },
  { additionalProperties: false, title: 'MerchantDeposit' },
);

const DeliveryFields = {
  delivery_id: Type.String(),
  event_id: Type.String({ description: 'The webhook-id header of every attempt' }),
  type: Type.String({ description: 'Event type, e.g. invoice.settled' }),
  status: StringEnum(['pending', 'delivered', 'failed']),
  attempts: Type.Integer(),
  next_attempt_at: Type.Union([DateTime('Next try (pending only)'), Type.Null()]),
  last_attempt_at: Type.Union([DateTime('Last try'), Type.Null()]),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: DateTime('When the event was queued'),
  updated_at: DateTime('Last change'),
  retrying: Type.Boolean({
    description: 'Pending after at least one attempt the endpoint did not accept: the endpoint is failing now',
  }),
  subject: Type.Object(
    {
      type: StringEnum(['invoice', 'payout', 'deposit']),
      id: Type.String({ description: 'The invoice id, payout id or deposit id the event is about' }),
    },
    { additionalProperties: false, description: 'What the event is about: link to its invoice or payout' },
  ),
};

export const DeliverySchema = Type.Object(DeliveryFields, { additionalProperties: false, title: 'Delivery' });

export const DeliveryDetailSchema = Type.Object(
  {
    ...DeliveryFields,
    attempts_log: Type.Array(
      Type.Object(
        {
          attempt: Type.Integer(),
          at: DateTime('When the attempt started'),
          url: Type.String(),
          status_code: Type.Union([Type.Integer(), Type.Null()]),
          duration_ms: Type.Integer(),
          outcome: StringEnum(['delivered', 'retry', 'failed']),
          error: Type.Union([Type.String(), Type.Null()]),
          response_excerpt: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false, title: 'DeliveryAttempt' },
      ),
    ),
  },
  { additionalProperties: false, title: 'DeliveryDetail' },
);
