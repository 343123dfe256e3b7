/** The owner creates page invoices: `POST /cabinet/v1/merchants/{merchant_id}/invoices`. */
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import { pageDeps } from '../server.js';
import { CREATE_PAGE_INVOICE_DESCRIPTION, CreatePageInvoiceBody, PageInvoiceSchema } from '../schema.js';
import { createPageInvoice } from '../service.js';
import { ownerActor, sessionOf, type CabinetDeps } from '../../cabinet/context.js';
import { ownedMerchantOf } from '../../cabinet/ownership.js';
import { MerchantParams } from '../../cabinet/schema.js';

export async function pageInvoiceRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const page = pageDeps(deps.services);
  app.post(
    '/cabinet/v1/merchants/:merchant_id/invoices',
    {
      schema: {
        operationId: 'createPageInvoice',
        tags: ['invoices'],
        summary: 'Create an invoice priced in dollars, paid in the token the customer picks',
        description: CREATE_PAGE_INVOICE_DESCRIPTION,
        params: MerchantParams,
        body: CreatePageInvoiceBody,
        response: {
          200: PageInvoiceSchema,
          201: PageInvoiceSchema,
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 503),
        },
      },
    },
    async (req, reply) => {
      const { invoice, created } = await createPageInvoice(
        page,
        ownedMerchantOf(req),
        req.body,
        ownerActor(sessionOf(req)),
      );
      return reply.code(created ? 201 : 200).send(invoice);
    },
  );
}
