/** The owner's refunds: create one for an invoice, list, read and cancel a merchant's refunds. */
import { Page } from '../../http/pagination.js';
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import { CREATE_REFUND_DESCRIPTION, CreateRefundBody, RefundListQuery, RefundSchema } from '../schema.js';
import { cancelRefund, createRefund, getRefund, refundDeps, refundPage } from '../service.js';
import { ownerActor, sessionOf, type CabinetDeps } from '../../cabinet/context.js';
import { ownedMerchantOf } from '../../cabinet/ownership.js';
import { InvoiceParams, MerchantParams } from '../../cabinet/schema.js';
import { REFUNDS_CSV } from '../../cabinet/export-columns.js';
import { listResponse, sendListCsv, withFormat } from '../../cabinet/exports.js';
import { Type } from '@sinclair/typebox';
import { Uuid } from '../../http/schemas.js';

const tags = ['refunds'];
const RefundParams = Type.Object(
  { merchant_id: Uuid('Merchant id'), refund_id: Uuid('Refund id') },
  { additionalProperties: false },
);
export async function refundRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const refunds = refundDeps(deps.services);
  const owned = (req: Parameters<typeof ownedMerchantOf>[0]) => ownedMerchantOf(req).id;

  app.post(
    '/cabinet/v1/merchants/:merchant_id/invoices/:invoice_id/refunds',
    {
      schema: {
        operationId: 'createRefund',
        tags,
        summary: 'Refund (part of) an invoice: the customer gives the address through the claim link',
        description: CREATE_REFUND_DESCRIPTION,
        params: InvoiceParams,
        body: CreateRefundBody,
        response: { 201: RefundSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 422, 429, 503) },
      },
    },
    async (req, reply) => {
      const view = await createRefund(
        refunds,
        owned(req),
        req.params.invoice_id.toLowerCase(),
        req.body,
        ownerActor(sessionOf(req)),
      );
      return reply.code(201).send(view);
    },
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/refunds',
    {
      schema: {
        operationId: 'listRefunds',
        tags,
        summary: 'Refunds, newest first',
        description: '`status` and `invoice_id` narrow the list.',
        params: MerchantParams,
        querystring: withFormat(RefundListQuery),
        response: {
          200: listResponse(Page(RefundSchema, 'RefundPage'), REFUNDS_CSV.columns),
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (req, reply) => {
      const { status, invoice_id, format, ...page } = req.query;
      const filter = {
        merchantId: owned(req),
        ...(status ? { status } : {}),
        ...(invoice_id ? { invoiceId: invoice_id.toLowerCase() } : {}),
      };
      if (format !== 'csv') return refundPage(deps.services.db, filter, page);
      return sendListCsv(
        reply,
        filter.merchantId,
        REFUNDS_CSV,
        (p) => refundPage(deps.services.db, filter, p),
        deps.exportPageSize,
      );
    },
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/refunds/:refund_id',
    {
      schema: {
        operationId: 'getRefund',
        tags,
        summary: 'One refund',
        description: '404 refund_not_found for an unknown id or another merchant’s refund.',
        params: RefundParams,
        response: { 200: RefundSchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (req) => getRefund(deps.services.db, req.params.refund_id, owned(req)),
  );

  app.post(
    '/cabinet/v1/merchants/:merchant_id/refunds/:refund_id/cancel',
    {
      schema: {
        operationId: 'cancelRefund',
        tags,
        summary: 'Cancel a refund still waiting for its address: its reservation is released',
        description: 'Once the customer gave the address, 409 invalid_state. `refund.canceled` is sent. No body.',
        params: RefundParams,
        response: { 200: RefundSchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req) => cancelRefund(deps.services, req.params.refund_id, owned(req), ownerActor(sessionOf(req))),
  );
}
