/** The console's refunds: `refund create|list|cancel` over HTTP. */
import { Type } from '@sinclair/typebox';
import { invoiceOfAnyMerchant } from '../operator.js';
import { CREATE_REFUND_DESCRIPTION, CreateRefundBody, RefundListQuery, RefundParams, RefundSchema } from '../schema.js';
import { cancelRefund, createRefund, getRefund, refundDeps, refundPage } from '../service.js';
import type { Services } from '../../services.js';
import { actorOf, type ConsoleServer } from '../../operators/context.js';
import { bodyErrors, errors, Page, Uuid } from '../../operators/schemas/common.js';

const tags = ['refunds'];
const InvoiceParams = Type.Object({ invoice_id: Uuid('The invoice') }, { additionalProperties: false });
const OperatorRefundListQuery = Type.Object(
  { ...RefundListQuery.properties, merchant_id: Type.Optional(Uuid('Only this merchant’s refunds')) },
  { additionalProperties: false },
);

export async function refundRoutes(app: ConsoleServer, s: Services): Promise<void> {
  const refunds = refundDeps(s);

  app.post(
    '/admin/v1/invoices/:invoice_id/refunds',
    {
      schema: {
        operationId: 'createRefund',
        tags,
        summary: 'Refund (part of) an invoice from its merchant’s balance (refund create)',
        description: CREATE_REFUND_DESCRIPTION,
        params: InvoiceParams,
        body: CreateRefundBody,
        response: { 201: RefundSchema, ...bodyErrors(403, 404, 422) },
      },
    },
    async (req, reply) => {
      const inv = await invoiceOfAnyMerchant(s.db, req.params.invoice_id);
      const view = await createRefund(refunds, inv.merchant_id, inv.id, req.body, actorOf(req));
      return reply.code(201).send(view);
    },
  );

  app.get(
    '/admin/v1/refunds',
    {
      schema: {
        operationId: 'listRefunds',
        tags,
        summary: 'Refunds, newest first (refund list)',
        description: '`merchant_id`, `status` and `invoice_id` narrow the list.',
        querystring: OperatorRefundListQuery,
        response: { 200: Page(RefundSchema, 'RefundPage'), ...errors() },
      },
    },
    async (req) => {
      const { status, invoice_id, merchant_id, ...page } = req.query;
      return refundPage(
        s.db,
        {
          ...(merchant_id ? { merchantId: merchant_id.toLowerCase() } : {}),
          ...(status ? { status } : {}),
          ...(invoice_id ? { invoiceId: invoice_id.toLowerCase() } : {}),
        },
        page,
      );
    },
  );

  app.get(
    '/admin/v1/refunds/:refund_id',
    {
      schema: {
        operationId: 'getRefund',
        tags,
        summary: 'One refund (refund list)',
        description: '404 refund_not_found for an unknown id.',
        params: RefundParams,
        response: { 200: RefundSchema, ...errors(404) },
      },
    },
    async (req) => getRefund(s.db, req.params.refund_id, null),
  );

  app.post(
    '/admin/v1/refunds/:refund_id/cancel',
    {
      schema: {
        operationId: 'cancelRefund',
        tags,
        summary: 'Cancel a refund still waiting for its address; its reservation is released (refund cancel)',
        description: 'Once the customer gave the address, 409 invalid_state. No body.',
        params: RefundParams,
        response: { 200: RefundSchema, ...errors(404, 409) },
      },
    },
    async (req) => cancelRefund(s, req.params.refund_id, null, actorOf(req)),
  );
}
