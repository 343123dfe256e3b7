/**
 * TypeBox schemas of the owner's settings and self-service: the webhook endpoint and its test,
 * the whitelist, the dashboard summary, the password change and the account's sessions.
 */
import { Type } from '@sinclair/typebox';
import { PageQuery } from '../http/pagination.js';
import { StringEnum, Uuid } from '../http/schemas.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../owners/service.js';

const DateTime = (description: string) => Type.String({ format: 'date-time', description });
const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(
  t: T,
  description: string,
) => Type.Union([t, Type.Null()], { description });

export const WebhookBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      examples: ['https://shop.example/paygate/webhooks'],
      description:
        "https URL that receives the events; a private, loopback or link-local address is the operator's to allow (422 webhook_url_not_allowed)",
    }),
    rotate_secret: Type.Optional(
      Type.Boolean({ description: 'Make a new signing secret; the current one keeps signing for 24 h' }),
    ),
  },
  { additionalProperties: false, title: 'WebhookEndpointRequest' },
);

export const WebhookEndpointSchema = Type.Object(
  {
    url: Type.String(),
    allow_private: Type.Boolean({ description: 'The operator allowed http and private targets for this URL' }),
    secret: Nullable(
      Type.String(),
      'The signing secret (whsec_…), only in the answer that made it (first set or rotation): shown once, keep it',
    ),
    previous_secret_until: Nullable(
      Type.String({ format: 'date-time' }),
      'Until when the previous secret still signs (after a rotation)',
    ),
    created_at: DateTime('When the endpoint was first set'),
    updated_at: DateTime('Last change'),
  },
  { additionalProperties: false, title: 'WebhookEndpoint' },
);

/** The test event's outcome, as the console shows it. */
export { WebhookTestSchema } from '../operators/schemas/merchants.js';

export const WhitelistEntrySchema = Type.Object(
  {
    entry_id: Type.String(),
    asset: Type.String(),
    address: Type.String(),
    delay: Type.String({ description: 'The safety delay of the entry, e.g. 24h (from when it was added)' }),
    delay_seconds: Type.Integer({ description: 'The same delay in seconds' }),
    usable_from: DateTime('Payouts to the address are accepted from this time'),
    usable: Type.Boolean({ description: 'The delay has passed at the time of the answer' }),
    created_at: DateTime('When the operator added it'),
  },
  { additionalProperties: false, title: 'WhitelistEntry' },
);

export const PageOnly = Type.Object({ ...PageQuery }, { additionalProperties: false });

export const SummarySchema = Type.Object(
  {
    merchant_id: Uuid('Merchant id'),
    as_of: DateTime('The moment the totals were summed'),
    today_from: DateTime('Start of "today": midnight UTC'),
    open_exceptions: Type.Integer({
      description: 'Exceptions of the merchant that need attention (GET …/exceptions?open=true)',
    }),
    assets: Type.Array(
      Type.Object(
        {
          asset: Type.String(),
          received_today: Type.String({ description: 'Confirmed deposits seen since midnight UTC (decimal text)' }),
          received_7d: Type.String({ description: 'Confirmed deposits seen in the last 7 × 24 h' }),
          received_30d: Type.String({ description: 'Confirmed deposits seen in the last 30 × 24 h' }),
          pending: Type.String({ description: 'Deposits seen and not yet confirmed' }),
        },
        { additionalProperties: false },
      ),
      { description: 'One row per asset with a deposit in the last 30 days or one pending; none otherwise' },
    ),
    daily: Type.Array(
      Type.Object(
        {
          date: Type.String({ format: 'date', description: 'A UTC day, YYYY-MM-DD' }),
          asset: Type.String(),
          amount: Type.String({
            description: 'Confirmed deposits first seen that UTC day (decimal text; "0" if none)',
          }),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Received per UTC day for the chart: the 30 days up to and including today, oldest first, 30 entries for each asset with a confirmed deposit in those days (days without one hold "0"), grouped by asset',
      },
    ),
  },
  { additionalProperties: false, title: 'MerchantSummary' },
);

export const PasswordBody = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
    new_password: Type.String({
      minLength: PASSWORD_MIN,
      maxLength: PASSWORD_MAX,
      description: 'At least 12 characters (400 validation_failed at body.new_password otherwise, as at setup)',
    }),
  },
  { additionalProperties: false, title: 'PasswordChangeRequest' },
);

export const SessionParams = Type.Object(
  {
    session_id: Type.String({
      pattern: '^[0-9a-f]{32}$',
      description: 'Session id, from GET /cabinet/v1/account/sessions',
    }),
  },
  { additionalProperties: false },
);

export const AccountSessionSchema = Type.Object(
  {
    session_id: Type.String({ description: 'Names the session; it is not its token and signs nothing in' }),
    transport: StringEnum(['bearer', 'cookie'], '`cookie`: the web page; `bearer`: the API'),
    created_at: DateTime('Signed in at'),
    last_used_at: DateTime('Last request (recorded at most once a minute)'),
    expires_at: DateTime('Ends then unless a request comes first'),
    address: Nullable(Type.String(), 'The client address at sign-in; null for a session from before it was recorded'),
    current: Type.Boolean({ description: 'The session of this request' }),
  },
  { additionalProperties: false, title: 'AccountSession' },
);

export const AccountSessionList = Type.Object(
  { data: Type.Array(AccountSessionSchema) },
  { additionalProperties: false, title: 'AccountSessionList' },
);
