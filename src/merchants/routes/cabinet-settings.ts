/** A merchant's webhook endpoint and its test, the payout whitelist, and the dashboard's totals. */
import { errorResponses } from '../../http/schemas.js';
import { Page } from '../../http/pagination.js';
import type { ApiServer } from '../../http/server.js';
import { sessionOf, type CabinetDeps } from '../../cabinet/context.js';
import { ownedMerchantOf } from '../../cabinet/ownership.js';
import { MerchantParams } from '../../cabinet/schema.js';
import {
  PageOnly,
  SummarySchema,
  WebhookBody,
  WebhookEndpointSchema,
  WebhookTestSchema,
  WhitelistEntrySchema,
} from '../../cabinet/schema-settings.js';
import { ownerWhitelist, setOwnedWebhook, testOwnedWebhook } from '../../cabinet/settings.js';
import { merchantSummary } from '../../cabinet/summary.js';

export async function settingsRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const s = deps.services;

  app.put(
    '/cabinet/v1/merchants/:merchant_id/webhook',
    {
      schema: {
        operationId: 'setWebhook',
        tags: ['webhooks'],
        summary: "Set the merchant's webhook endpoint; the signing secret is shown once",
        description:
          'The secret (whsec_…) is in the answer only when it is made: when the endpoint is first set and with `rotate_secret` (the old secret keeps signing for 24 h). The URL must be https and must not name a private, loopback or link-local address (422 webhook_url_not_allowed, nothing changed); host names are checked again before every delivery. An address the operator allowed stays allowed while the URL stays the same. Audited with the owner as actor.',
        params: MerchantParams,
        body: WebhookBody,
        response: { 200: WebhookEndpointSchema, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (req) => setOwnedWebhook(s, sessionOf(req), ownedMerchantOf(req).id, req.body),
  );

  app.post(
    '/cabinet/v1/merchants/:merchant_id/webhook/test',
    {
      schema: {
        operationId: 'testWebhook',
        tags: ['webhooks'],
        summary: 'Send a signed webhook.test event to the endpoint now',
        description:
          "The answer is the receiver's: status, duration, an excerpt. The event is outside the merchant's ordered stream and the delivery log. 409 invalid_state when no endpoint is set. No body.",
        params: MerchantParams,
        response: { 200: WebhookTestSchema, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (req) => testOwnedWebhook(s, sessionOf(req), ownedMerchantOf(req).id),
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/whitelist',
    {
      schema: {
        operationId: 'listWhitelist',
        tags: ['payouts'],
        summary: 'The payout whitelist, newest first: each address with its delay and when it becomes usable',
        description: 'Read only: the operator adds and removes addresses. Removed entries are not listed.',
        params: MerchantParams,
        querystring: PageOnly,
        response: { 200: Page(WhitelistEntrySchema, 'WhitelistPage'), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (req) => ownerWhitelist(s.db, s.clock.now(), ownedMerchantOf(req).id, req.query),
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/summary',
    {
      schema: {
        operationId: 'getSummary',
        tags: ['merchants'],
        summary: 'Dashboard totals per asset: received today, in 7 and 30 days, and pending',
        description:
          "Received: confirmed deposits (invoice and standalone, late ones included) by the time they were first seen; today starts at midnight UTC, 7 and 30 days count back from now. Pending: deposits seen and not yet confirmed. Decimal text in the asset's units.",
        params: MerchantParams,
        response: { 200: SummarySchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (req) => merchantSummary(s.db, ownedMerchantOf(req).id, s.clock.now()),
  );
}
