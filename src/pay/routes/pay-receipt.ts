/** The receipt of a paid page invoice, as JSON for the page (the printable page itself: ../server.ts). */
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/surface.js';
import { getReceipt } from '../receipt.js';
import { InvoiceIdParams, ReceiptViewSchema } from '../schema.js';
import type { PageDeps } from '../service.js';

export async function registerPayReceiptRoutes(app: ApiServer, deps: PageDeps): Promise<void> {
  app.get(
    '/pay/v1/invoices/:invoice_id/receipt',
    {
      schema: {
        operationId: 'getPaymentReceipt',
        tags: ['payment page'],
        summary: 'The receipt of a paid invoice',
        description:
          'Once the invoice is paid (confirmed, settled or paid_late): the merchant, the order id, the description, the price, what was paid in which token and when, and each transaction with its explorer link (Tronscan on mainnet and Nile, null on the devnet). Before that, and for an unknown id, 404 invoice_not_found.',
        params: InvoiceIdParams,
        response: { 200: ReceiptViewSchema, ...errorResponses(400, 404, 429) },
      },
    },
    async (req) => getReceipt(deps, req.params.invoice_id),
  );
}
