/** The console's assets: `asset list|set`, `fee payout`, `fee invoice`. */
import { Type } from '@sinclair/typebox';
import { listAssets } from '../service.js';
import { assetDetails, updateAsset } from '../settings.js';
import { setPayoutFee } from '../../fees/payout.js';
import { setInvoiceFee } from '../../fees/service.js';
import type { Services } from '../../services.js';
import { actorOf, type ConsoleServer } from '../../operators/context.js';
import { pageInOrder } from '../../operators/paging.js';
import { bodyErrors, errors, Page, PageQuery } from '../../operators/schemas/common.js';
import {
  AssetDetailsSchema,
  AssetParams,
  AssetSchema,
  InvoiceFeeBody,
  InvoiceFeeSchema,
  PayoutFeeBody,
  PayoutFeeSchema,
  UpdateAssetBody,
} from '../../operators/schemas/assets.js';

const tags = ['assets'];

export async function assetRoutes(app: ConsoleServer, s: Services): Promise<void> {
  app.get(
    '/admin/v1/assets',
    {
      schema: {
        operationId: 'listAssets',
        tags,
        summary: 'The asset catalog of TRON_NETWORK with the switches in force, in catalog order (asset list)',
        description: 'Pages with limit and cursor, as every list (the catalog is a handful of assets).',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Page(AssetSchema, 'AssetPage'), ...errors() },
      },
    },
    async (req) => pageInOrder(await listAssets(s.db, s.catalog), req.query, (a) => a.asset),
  );

  app.get(
    '/admin/v1/assets/:asset',
    {
      schema: {
        operationId: 'getAsset',
        tags,
        summary: 'One asset with its switches and sweep threshold',
        description: '404 asset_not_found for an asset outside the catalog.',
        params: AssetParams,
        response: { 200: AssetDetailsSchema, ...errors(404) },
      },
    },
    async (req) => assetDetails(s.db, s.catalog, req.params.asset),
  );

  app.patch(
    '/admin/v1/assets/:asset',
    {
      schema: {
        operationId: 'updateAsset',
        tags,
        summary: 'Switch receiving or payouts of an asset for every merchant, or set its sweep threshold (asset set)',
        description:
          '409 asset_flag_locked when the catalog does not allow the switch. A bad value refuses the whole request before anything changes.',
        params: AssetParams,
        body: UpdateAssetBody,
        response: { 200: AssetDetailsSchema, ...bodyErrors(404, 409) },
      },
    },
    async (req) =>
      updateAsset(s.db, s.clock, actorOf(req), s.catalog, req.params.asset, {
        payments: req.body.payments,
        payouts: req.body.payouts,
        sweepThreshold: req.body.sweep_threshold,
      }),
  );

  app.post(
    '/admin/v1/assets/:asset/payout-fees',
    {
      schema: {
        operationId: 'setPayoutFee',
        tags,
        summary: 'Set the payout fee of an asset from now or from valid_from (fee payout)',
        description:
          'A fixed amount plus a percent of the payout amount, charged to the merchant on every new payout. A fixed part above 5 units needs confirm_high_amount: true and a percent above 3 confirm_high_rate: true (422 payout_fee_confirmation_required, naming which); a valid_from already past is 422 payout_fee_valid_from_in_past; an asset paid out in no case is 422 asset_not_payable.',
        params: AssetParams,
        body: PayoutFeeBody,
        response: { 201: PayoutFeeSchema, ...bodyErrors(422) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const fee = await setPayoutFee(s.db, s.clock, actorOf(req), s.catalog, {
        asset: req.params.asset,
        amount: b.amount,
        percent: b.percent,
        ...(b.valid_from === undefined ? {} : { validFrom: b.valid_from }),
        confirmHighAmount: b.confirm_high_amount === true,
        confirmHighRate: b.confirm_high_rate === true,
      });
      return reply.code(201).send(fee);
    },
  );

  app.post(
    '/admin/v1/assets/:asset/invoice-fees',
    {
      schema: {
        operationId: 'setInvoiceFee',
        tags,
        summary: 'Set the fixed receiving amount of an asset from now or from valid_from (fee invoice)',
        description:
          'Added to the service fee of every new invoice in the asset. Above 5 units needs confirm_high_amount: true (422 invoice_fee_confirmation_required); a valid_from already past is 422 invoice_fee_valid_from_in_past; an asset not accepted for payment is 422 asset_not_supported.',
        params: AssetParams,
        body: InvoiceFeeBody,
        response: { 201: InvoiceFeeSchema, ...bodyErrors(422) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const fee = await setInvoiceFee(s.db, s.clock, actorOf(req), s.catalog, {
        asset: req.params.asset,
        amount: b.amount,
        ...(b.valid_from === undefined ? {} : { validFrom: b.valid_from }),
        confirmHighAmount: b.confirm_high_amount === true,
      });
      return reply.code(201).send(fee);
    },
  );
}
