/** The account's merchants: list, one, the owner's switches, balances and API keys. */
import { comesAfter } from '../../db/keyset.js';
import { decodeCursor, DEFAULT_PAGE_LIMIT, Page, toPage } from '../../http/pagination.js';
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import { BalancesSchema } from '../../ledger/schema.js';
import { merchantsOfOwner } from '../../owners/store.js';
import { listKeys, showKey } from '../../cabinet/activity.js';
import { sessionOf, type CabinetDeps } from '../../cabinet/context.js';
import { KEYS_CSV } from '../../cabinet/export-columns.js';
import { listResponse, sendListCsv, withFormat } from '../../cabinet/exports.js';
import {
  AssetParams,
  AssetSwitchBody,
  KeyParams,
  KeySchema,
  MerchantAssetSchema,
  MerchantParams,
  MerchantPatchBody,
  MerchantSchema,
  PageOnlyQuery,
} from '../../cabinet/schema.js';
import { ownedMerchantOf } from '../../cabinet/ownership.js';
import { merchantOwnerView, ownedBalances, setOwnedMerchantAsset, updateOwnedMerchant } from '../../cabinet/service.js';

export async function merchantRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const s = deps.services;
  const { db } = s;

  app.get(
    '/cabinet/v1/merchants',
    {
      schema: {
        operationId: 'listMerchants',
        tags: ['merchants'],
        summary: "The account's merchants, newest first",
        description: 'Each with its approval, enabled switch, address mode, settings and asset switches.',
        querystring: PageOnlyQuery,
        response: { 200: Page(MerchantSchema, 'MerchantPage'), ...errorResponses(400, 401, 429) },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? DEFAULT_PAGE_LIMIT;
      const key = decodeCursor(req.query.cursor);
      // An account has a handful of merchants: paged in memory, in the order every list has.
      const all = (await merchantsOfOwner(db, sessionOf(req).owner.id)).reverse();
      const after = key ? all.filter((m) => comesAfter({ at: m.created_at, id: m.id }, key, 'desc')) : all;
      const page = toPage(after.slice(0, limit + 1), limit, (m) => ({ at: m.created_at, id: m.id }));
      return { data: await Promise.all(page.data.map((m) => merchantOwnerView(s, m))), next_cursor: page.next_cursor };
    },
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id',
    {
      schema: {
        operationId: 'getMerchant',
        tags: ['merchants'],
        summary: 'A merchant: approval, enabled, address mode, settings and asset switches',
        description: "404 merchant_not_found also for another account's merchant.",
        params: MerchantParams,
        response: { 200: MerchantSchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (req) => merchantOwnerView(s, ownedMerchantOf(req)),
  );

  app.patch(
    '/cabinet/v1/merchants/:merchant_id',
    {
      schema: {
        operationId: 'updateMerchant',
        tags: ['merchants'],
        summary: "The owner's switches: enabled, network fee payer",
        description:
          '`enabled: false` makes every API key of the merchant answer 403 merchant_disabled from the next request. `network_fee_payer: "merchant"` clears the legacy setting that makes invoice creation answer 503 network_fee_quote_unavailable; `"customer"` is 422 network_fee_payer_not_supported and nothing of the request is written.',
        params: MerchantParams,
        body: MerchantPatchBody,
        response: { 200: MerchantSchema, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (req) => updateOwnedMerchant(s, sessionOf(req), ownedMerchantOf(req), req.body),
  );

  app.put(
    '/cabinet/v1/merchants/:merchant_id/assets/:asset',
    {
      schema: {
        operationId: 'setMerchantAsset',
        tags: ['merchants'],
        summary: "The merchant's own switch for receiving an asset",
        description:
          'Off: invoice creation in this asset answers 422 asset_disabled_by_merchant. An unknown asset, or one never received: 422 asset_not_supported.',
        params: AssetParams,
        body: AssetSwitchBody,
        response: { 200: MerchantAssetSchema, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (req) => setOwnedMerchantAsset(s, sessionOf(req), ownedMerchantOf(req), req.params.asset, req.body.payments),
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/balances',
    {
      schema: {
        operationId: 'getBalances',
        tags: ['merchants'],
        summary: 'Balances per asset: available, reserved for payouts, total',
        description: 'One row per asset the merchant has ledger entries in; amounts are decimal text.',
        params: MerchantParams,
        response: { 200: BalancesSchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (req) => ownedBalances(s, ownedMerchantOf(req).id),
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/keys',
    {
      schema: {
        operationId: 'listKeys',
        tags: ['keys'],
        summary: "The merchant's API keys (never a secret), newest first",
        description: 'Keys are issued and revoked by the operator.',
        params: MerchantParams,
        querystring: withFormat(PageOnlyQuery),
        response: {
          200: listResponse(Page(KeySchema, 'ApiKeyPage'), KEYS_CSV.columns),
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (req, reply) => {
      const { format, ...q } = req.query;
      const id = ownedMerchantOf(req).id;
      const now = s.clock.now();
      if (format !== 'csv') return listKeys(db, now, id, q);
      return sendListCsv(reply, id, KEYS_CSV, (p) => listKeys(db, now, id, { ...q, ...p }), deps.exportPageSize);
    },
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/keys/:key_id',
    {
      schema: {
        operationId: 'getKey',
        tags: ['keys'],
        summary: 'One API key (never its secret)',
        description: "404 api_key_not_found also for another merchant's key.",
        params: KeyParams,
        response: { 200: KeySchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (req) => showKey(db, s.clock.now(), ownedMerchantOf(req).id, req.params.key_id),
  );
}
