/** The console's merchants: `merchant list|create|show|update|approve|reject|enable|disable|balance|asset|webhook`, `webhook test`. */
import { Type } from '@sinclair/typebox';
import { setMerchantAsset } from '../../assets/service.js';
import { toPage } from '../../http/pagination.js';
import { merchantBalances } from '../../ledger/operator.js';
import { BalancesSchema } from '../../ledger/schema.js';
import { allMerchants, changeMerchant, createMerchant, type MerchantAction } from '../service.js';
import { merchantDetails, updateMerchant } from '../settings.js';
import type { Services } from '../../services.js';
import { setEndpoint } from '../../webhooks/endpoints.js';
import { sendTestEvent } from '../../webhooks/service.js';
import { actorOf, type ConsoleServer } from '../../operators/context.js';
import { pageLimit, pageRequest } from '../../operators/paging.js';
import { AssetParam, bodyErrors, errors, MerchantParams, Page, PageQuery } from '../../operators/schemas/common.js';
import {
  CreateMerchantBody,
  MerchantAssetBody,
  MerchantAssetSchema,
  MerchantDetailsSchema,
  MerchantSchema,
  UpdateMerchantBody,
  WebhookBody,
  WebhookEndpointSchema,
  WebhookTestSchema,
} from '../../operators/schemas/merchants.js';

const tags = ['merchants'];

const ACTIONS: Record<MerchantAction, string> = {
  approve: 'Approve a merchant after review: it may then create invoices and permanent addresses',
  reject: 'Reject a merchant: it cannot accept payments (keys and reads keep working)',
  enable: "Lift the operator's stop of a merchant (the owner's own switch stays as it is)",
  disable:
    "Disable a merchant (the operator's switch): its API keys answer 403 merchant_disabled; its owner cannot lift this stop",
};

export async function merchantRoutes(app: ConsoleServer, s: Services): Promise<void> {
  app.get(
    '/admin/v1/merchants',
    {
      schema: {
        operationId: 'listMerchants',
        tags,
        summary: 'List merchants, newest first (merchant list)',
        description: 'Pages with limit (default 50, at most 500) and the next_cursor of the previous page.',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Page(MerchantSchema, 'MerchantPage'), ...errors() },
      },
    },
    async (req) => {
      const rows = await allMerchants(s.db, pageRequest(req.query));
      return toPage(rows, pageLimit(req.query), (m) => ({ at: m.created_at, id: m.merchant_id }));
    },
  );

  app.post(
    '/admin/v1/merchants',
    {
      schema: {
        operationId: 'createMerchant',
        tags,
        summary: 'Create a merchant, pending approval and enabled (merchant create)',
        description: 'It may create invoices and permanent addresses once approved; URLs are absolute http(s) URLs.',
        body: CreateMerchantBody,
        response: { 201: MerchantSchema, ...bodyErrors() },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const m = await createMerchant(s.db, s.clock, actorOf(req), {
        name: b.name,
        ...(b.address_mode ? { addressMode: b.address_mode } : {}),
        siteUrl: b.site_url ?? null,
        returnUrl: b.return_url ?? null,
        cancelUrl: b.cancel_url ?? null,
        legacyNetworkFeePayer: b.legacy_network_fee_payer ?? null,
      });
      return reply.code(201).send(m);
    },
  );

  app.get(
    '/admin/v1/merchants/:merchant_id',
    {
      schema: {
        operationId: 'getMerchant',
        tags,
        summary: 'A merchant with its settings and payout review limits (merchant show)',
        description: '404 merchant_not_found for an unknown id.',
        params: MerchantParams,
        response: { 200: MerchantDetailsSchema, ...errors(404) },
      },
    },
    async (req) => merchantDetails(s.db, req.params.merchant_id),
  );

  app.patch(
    '/admin/v1/merchants/:merchant_id',
    {
      schema: {
        operationId: 'updateMerchant',
        tags,
        summary: "Change a merchant's settings and payout review limits (merchant update)",
        description: 'Only the fields given change. A URL of null or "" clears it.',
        params: MerchantParams,
        body: UpdateMerchantBody,
        response: { 200: MerchantDetailsSchema, ...bodyErrors(404) },
      },
    },
    async (req) => {
      const b = req.body;
      const url = (v: string | null | undefined) => (v === undefined ? undefined : (v ?? ''));
      return updateMerchant(s.db, s.clock, actorOf(req), req.params.merchant_id, {
        siteUrl: url(b.site_url),
        returnUrl: url(b.return_url),
        cancelUrl: url(b.cancel_url),
        confirmations: b.confirmations,
        payoutAutoApproveLimit: b.payout_auto_approve_limit,
        payoutDailyLimit: b.payout_daily_limit,
      });
    },
  );

  for (const action of Object.keys(ACTIONS) as MerchantAction[]) {
    app.post(
      `/admin/v1/merchants/:merchant_id/${action}`,
      {
        schema: {
          operationId: `${action}Merchant`,
          tags,
          summary: `${ACTIONS[action]} (merchant ${action})`,
          description: 'Repeating it changes nothing. No body.',
          params: MerchantParams,
          response: { 200: MerchantSchema, ...errors(404) },
        },
      },
      async (req) => changeMerchant(s.db, s.clock, actorOf(req), req.params.merchant_id, action),
    );
  }

  app.get(
    '/admin/v1/merchants/:merchant_id/balances',
    {
      schema: {
        operationId: 'getMerchantBalances',
        tags,
        summary: 'Ledger balances per asset: available, reserved and total (merchant balance)',
        description:
          'Available is usable by new payouts; reserved is held by open payouts. Assets without entries are left out.',
        params: MerchantParams,
        response: { 200: BalancesSchema, ...errors(404) },
      },
    },
    async (req) => merchantBalances(s.db, s.catalog, req.params.merchant_id),
  );

  app.put(
    '/admin/v1/merchants/:merchant_id/assets/:asset',
    {
      schema: {
        operationId: 'setMerchantAsset',
        tags,
        summary: "Switch receiving an asset on or off in the merchant's own settings (merchant asset)",
        description: 'Off: its invoices in the asset answer asset_disabled_by_merchant.',
        params: Type.Object({ ...MerchantParams.properties, asset: AssetParam }, { additionalProperties: false }),
        body: MerchantAssetBody,
        response: { 200: MerchantAssetSchema, ...bodyErrors(404, 422) },
      },
    },
    async (req) =>
      setMerchantAsset(
        s.db,
        s.clock,
        actorOf(req),
        s.catalog,
        req.params.merchant_id,
        req.params.asset,
        req.body.payments,
      ),
  );

  app.put(
    '/admin/v1/merchants/:merchant_id/webhook',
    {
      schema: {
        operationId: 'setMerchantWebhook',
        tags,
        summary: "Set a merchant's webhook endpoint (merchant webhook)",
        description:
          'The signing secret is in the answer once: when the endpoint is first set and with rotate_secret (the old secret keeps signing for 24 h).',
        params: MerchantParams,
        body: WebhookBody,
        response: { 200: WebhookEndpointSchema, ...bodyErrors(404) },
      },
    },
    async (req) =>
      setEndpoint(s.db, s.clock, actorOf(req), req.params.merchant_id, {
        url: req.body.url,
        rotateSecret: req.body.rotate_secret === true,
        allowPrivate: req.body.allow_private === true,
      }),
  );

  app.post(
    '/admin/v1/merchants/:merchant_id/webhook/test',
    {
      schema: {
        operationId: 'testMerchantWebhook',
        tags,
        summary: "Send a signed webhook.test event to the merchant's endpoint now (webhook test)",
        description:
          "The answer is the receiver's: status, duration, an excerpt. 409 invalid_state when the merchant has no endpoint. No body.",
        params: MerchantParams,
        response: { 200: WebhookTestSchema, ...errors(404, 409) },
      },
    },
    async (req) => sendTestEvent(s.db, s.clock, req.params.merchant_id, { actor: actorOf(req) }),
  );
}
