/** The customer's routes of the payment page's listener: GET the page's view, POST the choice of the token. */
import { errorResponses } from '../http/schemas.js';
import type { ApiServer } from '../http/surface.js';
import { chooseAsset, getPayView } from './customer.js';
import { ChooseAssetBody, InvoiceIdParams, PayViewSchema } from './schema.js';
import type { PageDeps } from './service.js';

export async function registerPayRoutes(app: ApiServer, deps: PageDeps): Promise<void> {
  app.get(
    '/pay/v1/invoices/:invoice_id',
    {
      schema: {
        operationId: 'getPaymentPageInvoice',
        tags: ['payment page'],
        summary: 'What the payment page shows',
        description:
          "The merchant's name, the description, the price and the offered tokens with what the customer pays in each; after the choice the token, the deposit address, the amounts (amount_due the one to send now, amount_overpaid the excess), the status, the deposits and any deposits of another token to the address (foreign_deposits: they do not pay the invoice). 404 invoice_not_found for an unknown id and for an invoice made through the merchant API.",
        params: InvoiceIdParams,
        response: { 200: PayViewSchema, ...errorResponses(400, 404, 429) },
      },
    },
    async (req) => getPayView(deps, req.params.invoice_id),
  );

  app.post(
    '/pay/v1/invoices/:invoice_id/asset',
    {
      schema: {
        operationId: 'chooseAsset',
        tags: ['payment page'],
        summary: 'The customer chooses the token to pay in (final)',
        description:
          '201 with the deposit address and amount_expected (the offered amount of that token); the same token again is 200; another token is 409 asset_already_selected; past choose_by (less than min(PAY_MIN_TIME_TO_PAY, half the term) left to pay) 409 invoice_expired; a token not offered 422 asset_not_offered; one switched off since 422 asset_payments_disabled or asset_disabled_by_merchant.',
        params: InvoiceIdParams,
        body: ChooseAssetBody,
        response: { 200: PayViewSchema, 201: PayViewSchema, ...errorResponses(400, 403, 404, 409, 422, 429, 503) },
      },
    },
    async (req, reply) => {
      const { view, created } = await chooseAsset(deps, req.params.invoice_id, req.body.asset);
      return reply.code(created ? 201 : 200).send(view);
    },
  );
}
