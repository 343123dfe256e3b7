/** The console's page invoices: `POST /admin/v1/merchants/{merchant_id}/invoices` (`paygate invoice create`). */
import { requireMerchant } from '../../merchants/service.js';
import { pageDeps } from '../../pay/server.js';
import { CREATE_PAGE_INVOICE_DESCRIPTION, CreatePageInvoiceBody, PageInvoiceSchema } from '../../pay/schema.js';
import { createPageInvoice } from '../../pay/service.js';
import type { Services } from '../../services.js';
import { actorOf, type ConsoleServer } from '../../operators/context.js';
import { bodyErrors, MerchantParams } from '../../operators/schemas/common.js';

export async function invoiceRoutes(app: ConsoleServer, s: Services): Promise<void> {
  const deps = pageDeps(s);
  app.post(
    '/admin/v1/merchants/:merchant_id/invoices',
    {
      schema: {
        operationId: 'createPageInvoice',
        tags: ['merchants'],
        summary: 'Create an invoice priced in dollars, paid in the token the customer picks (invoice create)',
        description: CREATE_PAGE_INVOICE_DESCRIPTION,
        params: MerchantParams,
        body: CreatePageInvoiceBody,
        response: { 200: PageInvoiceSchema, 201: PageInvoiceSchema, ...bodyErrors(403, 404, 409, 422) },
      },
    },
    async (req, reply) => {
      const merchant = await requireMerchant(s.db, req.params.merchant_id);
      const { invoice, created } = await createPageInvoice(deps, merchant, req.body, actorOf(req));
      return reply.code(created ? 201 : 200).send(invoice);
    },
  );
}
