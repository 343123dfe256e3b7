/** A merchant's invoices, payouts, deposits and webhook deliveries, as its owner sees them. */
import { Page } from '../../http/pagination.js';
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import {
  listDeliveries,
  listDeposits,
  listInvoices,
  listPayouts,
  showDelivery,
  showInvoice,
  showPayout,
} from '../activity.js';
import { OwnerInvoiceSchema, OwnerPayoutSchema } from '../schema-views.js';
import type { CabinetDeps } from '../context.js';
import { ownedMerchantOf } from '../ownership.js';
import { DELIVERIES_CSV, DEPOSITS_CSV, INVOICES_CSV, PAYOUTS_CSV } from '../export-columns.js';
import { listResponse, sendListCsv, withFormat } from '../exports.js';
import {
  DeliveryDetailSchema,
  DeliveryListQuery,
  DeliveryParams,
  DeliverySchema,
  DepositListQuery,
  InvoiceListQuery,
  InvoiceParams,
  MerchantParams,
  PayoutListQuery,
  PayoutParams,
  StandaloneDepositSchema,
} from '../schema.js';

const LIST_ERRORS = errorResponses(400, 401, 404, 429);
const FILTERED_LIST_ERRORS = errorResponses(400, 401, 404, 422, 429);

export async function activityRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const { db } = deps.services;
  const owned = (req: Parameters<typeof ownedMerchantOf>[0]) => ownedMerchantOf(req).id;
  const size = deps.exportPageSize;

  app.get(
    '/cabinet/v1/merchants/:merchant_id/invoices',
    {
      schema: {
        operationId: 'listInvoices',
        tags: ['invoices'],
        summary: 'Invoices, newest first, as /v1 shows them, with senders and status history; page invoices included',
        description:
          "`from` and `to` bound the creation time, the half-open period [from, to) as on the reports; `from` not before `to` is 422 invalid_period. `q` finds by order id, invoice id, deposit address or a deposit's transaction hash. A page invoice shows its price and description; one whose customer has not picked the token yet has `awaiting_choice: true`, status created (expired past its term), and asset, address, amounts and fees null.",
        params: MerchantParams,
        querystring: withFormat(InvoiceListQuery),
        response: {
          200: listResponse(Page(OwnerInvoiceSchema, 'InvoicePage'), INVOICES_CSV.columns),
          ...FILTERED_LIST_ERRORS,
        },
      },
    },
    async (req, reply) => {
      const { format, ...q } = req.query;
      const now = deps.services.clock.now();
      if (format !== 'csv') return listInvoices(db, now, owned(req), q);
      return sendListCsv(
        reply,
        owned(req),
        INVOICES_CSV,
        (p) => listInvoices(db, now, owned(req), { ...q, ...p }),
        size,
      );
    },
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/invoices/:invoice_id',
    {
      schema: {
        operationId: 'getInvoice',
        tags: ['invoices'],
        summary:
          "An invoice as GET /v1/invoices/{id} shows it, with each deposit's sender and the status history; a page invoice also before the choice",
        description: "404 invoice_not_found also for another merchant's invoice.",
        params: InvoiceParams,
        response: { 200: OwnerInvoiceSchema, ...LIST_ERRORS },
      },
    },
    async (req) => showInvoice(db, deps.services.clock.now(), owned(req), req.params.invoice_id),
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/payouts',
    {
      schema: {
        operationId: 'listPayouts',
        tags: ['payouts'],
        summary: 'Payouts, newest first, as /v1 shows them, with the reason of a rejected, failed or held payout',
        description:
          '`from` and `to` bound the creation time, the half-open period [from, to) as on the reports; `from` not before `to` is 422 invalid_period. `q` finds by reference, payout id, destination address or transaction hash.',
        params: MerchantParams,
        querystring: withFormat(PayoutListQuery),
        response: {
          200: listResponse(Page(OwnerPayoutSchema, 'PayoutPage'), PAYOUTS_CSV.columns),
          ...FILTERED_LIST_ERRORS,
        },
      },
    },
    async (req, reply) => {
      const { format, ...q } = req.query;
      if (format !== 'csv') return listPayouts(db, owned(req), q);
      return sendListCsv(reply, owned(req), PAYOUTS_CSV, (p) => listPayouts(db, owned(req), { ...q, ...p }), size);
    },
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/payouts/:payout_id',
    {
      schema: {
        operationId: 'getPayout',
        tags: ['payouts'],
        summary: 'A payout as GET /v1/payouts/{id} shows it, with the reason of a rejected, failed or held payout',
        description: "404 payout_not_found also for another merchant's payout.",
        params: PayoutParams,
        response: { 200: OwnerPayoutSchema, ...LIST_ERRORS },
      },
    },
    async (req) => showPayout(db, owned(req), req.params.payout_id),
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/deposits',
    {
      schema: {
        operationId: 'listDeposits',
        tags: ['invoices'],
        summary: 'Deposits seen for the merchant, newest first; `unattached=true`: only standalone ones',
        description:
          'Standalone deposits are payments to a permanent address with no open invoice, or in another asset than the invoice’s; they are credited too.',
        params: MerchantParams,
        querystring: withFormat(DepositListQuery),
        response: {
          200: listResponse(Page(StandaloneDepositSchema, 'DepositPage'), DEPOSITS_CSV.columns),
          ...LIST_ERRORS,
        },
      },
    },
    async (req, reply) => {
      const { format, ...q } = req.query;
      if (format !== 'csv') return listDeposits(db, owned(req), q);
      return sendListCsv(reply, owned(req), DEPOSITS_CSV, (p) => listDeposits(db, owned(req), { ...q, ...p }), size);
    },
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/deliveries',
    {
      schema: {
        operationId: 'listDeliveries',
        tags: ['webhooks'],
        summary: 'The webhook delivery log, newest first',
        description: 'Resending a failed delivery stays with the operator.',
        params: MerchantParams,
        querystring: withFormat(DeliveryListQuery),
        response: {
          200: listResponse(Page(DeliverySchema, 'DeliveryPage'), DELIVERIES_CSV.columns),
          ...LIST_ERRORS,
        },
      },
    },
    async (req, reply) => {
      const { format, ...q } = req.query;
      if (format !== 'csv') return listDeliveries(db, owned(req), q);
      return sendListCsv(
        reply,
        owned(req),
        DELIVERIES_CSV,
        (p) => listDeliveries(db, owned(req), { ...q, ...p }),
        size,
      );
    },
  );

  app.get(
    '/cabinet/v1/merchants/:merchant_id/deliveries/:delivery_id',
    {
      schema: {
        operationId: 'getDelivery',
        tags: ['webhooks'],
        summary: 'A webhook delivery with every attempt (status, duration, response excerpt)',
        description: "404 delivery_not_found also for another merchant's delivery.",
        params: DeliveryParams,
        response: { 200: DeliveryDetailSchema, ...LIST_ERRORS },
      },
    },
    async (req) => showDelivery(db, owned(req), req.params.delivery_id),
  );
}
