/** Console schemas of API keys: the fields of `key list|issue|revoke --json`. */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.js';
import { MerchantParams, Nullable, Time, Uuid } from './common.js';

export const ApiKeySchema = Type.Object(
  {
    key_id: Type.String({ description: 'The 16 hex characters after sk_; public' }),
    merchant_id: Uuid('The merchant'),
    status: StringEnum(['active', 'expired', 'revoked'], 'expired: past expires_at, refused like a revoked key'),
    label: Nullable(Type.String({ description: "The operator's name for the key" })),
    created_at: Time(),
    expires_at: Nullable(Time('From this moment the key is refused; null: it does not expire')),
    allowed_networks: Nullable(
      Type.Array(Type.String(), { description: 'CIDRs requests may come from; null: any client address' }),
    ),
    last_used_at: Nullable(Time('The last authenticated request, to the minute; null: never used')),
    revoked_at: Nullable(Time()),
  },
  { additionalProperties: false, title: 'ApiKey' },
);

export const IssuedApiKeySchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    api_key: Type.String({ description: 'The whole key (sk_…): in this answer only, it cannot be shown again' }),
  },
  { additionalProperties: false, title: 'IssuedApiKey' },
);

/** The terms of `key issue` (its flags in snake case); every field optional, so no body is fine too. */
export const IssueKeyBody = Type.Object(
  {
    label: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'A name for the key, shown in lists' }),
    ),
    expires_in: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        description: 'Refuse the key after this long: 500ms, 30s, 15m, 24h, 7d or plain seconds (at most 3650d)',
      }),
    ),
    allow_ip: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 32,
        description: 'Client networks (CIDR, or one address) the key may be used from; absent: any address',
      }),
    ),
  },
  { additionalProperties: false },
);

export const KeyParams = Type.Object(
  {
    ...MerchantParams.properties,
    key_id: Type.String({ minLength: 1, maxLength: 64, description: 'The 16 hex characters after sk_' }),
  },
  { additionalProperties: false },
);
