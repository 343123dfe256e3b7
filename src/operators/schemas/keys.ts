/** Console schemas of API keys: the fields of `key list|issue|revoke --json`. */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.js';
import { MerchantParams, Nullable, Time, Uuid } from './common.js';

export const ApiKeySchema = Type.Object(
  {
    key_id: Type.String({ description: 'The 16 hex characters after sk_; public' }),
    merchant_id: Uuid('The merchant'),
    status: StringEnum(['active', 'revoked']),
    created_at: Time(),
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

export const KeyParams = Type.Object(
  {
    ...MerchantParams.properties,
    key_id: Type.String({ minLength: 1, maxLength: 64, description: 'The 16 hex characters after sk_' }),
  },
  { additionalProperties: false },
);
