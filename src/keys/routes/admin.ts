/** The console's API keys: `key list|issue|revoke`. */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.js';
import { issueKey, listKeys, revokeKey } from '../service.js';
import { EXPIRES_IN_MAX_MS } from '../terms.js';
import { DurationError, parseDuration } from '../../whitelist/duration.js';
import type { Services } from '../../services.js';
import { actorOf, type ConsoleServer } from '../../operators/context.js';
import { pageOfRows } from '../../operators/paging.js';
import { bodyErrors, errors, MerchantParams, Page, PageQuery } from '../../operators/schemas/common.js';
import { ApiKeySchema, IssueKeyBody, IssuedApiKeySchema, KeyParams } from '../../operators/schemas/keys.js';

const tags = ['keys'];

export async function keyRoutes(app: ConsoleServer, s: Services): Promise<void> {
  app.get(
    '/admin/v1/merchants/:merchant_id/keys',
    {
      schema: {
        operationId: 'listApiKeys',
        tags,
        summary: "A merchant's API keys, newest first: ids and states, never a secret (key list)",
        description: 'Pages with limit and cursor, as every list.',
        params: MerchantParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Page(ApiKeySchema, 'ApiKeyPage'), ...errors(404) },
      },
    },
    async (req) => {
      const keys = await listKeys(s.db, req.params.merchant_id);
      return pageOfRows(keys, req.query, (k) => ({ at: k.created_at, id: k.key_id }));
    },
  );

  app.post(
    '/admin/v1/merchants/:merchant_id/keys',
    {
      schema: {
        operationId: 'issueApiKey',
        tags,
        summary: 'Issue an API key for a merchant (key issue)',
        description:
          'The whole key is in this answer only (api_key); it cannot be shown again. The body (optional) sets the terms: label, expiry, client networks.',
        params: MerchantParams,
        body: Type.Optional(IssueKeyBody),
        response: { 201: IssuedApiKeySchema, ...bodyErrors(404) },
      },
    },
    async (req, reply) => {
      const body = req.body ?? {};
      const key = await issueKey(s.db, s.clock, actorOf(req), req.params.merchant_id, undefined, {
        label: body.label ?? null,
        expiresInMs: body.expires_in === undefined ? null : expiresIn(body.expires_in),
        allowedNetworks: body.allow_ip ?? null,
      });
      return reply.code(201).send(key);
    },
  );

  app.delete(
    '/admin/v1/merchants/:merchant_id/keys/:key_id',
    {
      schema: {
        operationId: 'revokeApiKey',
        tags,
        summary: 'Revoke an API key; the API refuses it from the next request, on every replica (key revoke)',
        description: "Revoking twice changes nothing. Another merchant's key is api_key_not_found.",
        params: KeyParams,
        response: { 200: ApiKeySchema, ...errors(404) },
      },
    },
    async (req) => revokeKey(s.db, s.clock, actorOf(req), req.params.key_id, req.params.merchant_id),
  );
}

/** `expires_in` as `key issue --expires-in` reads it; a malformed one names the flag, as the CLI does. */
function expiresIn(text: string): number {
  try {
    return parseDuration(text, EXPIRES_IN_MAX_MS);
  } catch (e) {
    if (e instanceof DurationError) throw new AppError('invalid_argument', `--expires-in ${e.message}`);
    throw e;
  }
}
