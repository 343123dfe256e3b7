/** POST /v1/invoices and GET /v1/invoices/{id}. */
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';
import { toAppError } from '../../http/errors.js';
import { errorResponses, UuidParams } from '../../http/schemas.js';
import { merchantOf, type ApiServer } from '../../http/server.js';
import { GroupCommit } from '../../db/group-commit.js';
import { CreateInvoiceBody, InvoiceSchema } from '../schema.js';
import { createInvoice, getInvoice } from '../service.js';

export async function invoiceRoutes(app: ApiServer, services: Services): Promise<void> {
  const deps = {
    db: services.db,
    clock: services.clock,
    catalog: services.catalog,
    allocator: services.addresses,
    groupCommit: new GroupCommit(services.db),
  };

  app.post(
    '/v1/invoices',
    {
      schema: {
        operationId: 'createInvoice',
        tags: ['invoices'],
        summary: 'Create an invoice, or return the existing invoice of the same order_id',
        description:
          '201 for a new invoice, 200 for the existing one (same body). `expires_in` is in seconds. A repeat with the order_id of an existing invoice returns it even when a new invoice would be refused now; the same order_id with another amount, asset or user is 409 order_id_conflict.',
        body: CreateInvoiceBody,
        response: { 200: InvoiceSchema, 201: InvoiceSchema, ...errorResponses(400, 401, 403, 409, 422, 429, 503) },
      },
      // assetRule needs to see the schema problems before answering them (see assetRule).
      attachValidation: true,
    },
    async (req, reply) => {
      if (req.validationError) throw assetRule(toAppError(req.validationError));
      const merchant = merchantOf(req);
      const { invoice, created } = await createInvoice(deps, merchant, req.body);
      return reply.code(created ? 201 : 200).send(invoice);
    },
  );

  app.get(
    '/v1/invoices/:id',
    {
      schema: {
        operationId: 'getInvoice',
        tags: ['invoices'],
        summary: 'Current state of an invoice',
        description:
          'The invoice with its amounts, deposits and status. 404 invoice_not_found also for an invoice of another merchant. Works for a merchant that is not approved.',
        params: UuidParams,
        response: { 200: InvoiceSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => getInvoice(deps, merchantOf(req).id, req.params.id),
  );
}

/**
 * A body whose only problem is a missing `asset` is 422 asset_required
 * (docs/adr/0014-invoice-creation-order-and-replay.md); with other problems it stays 400
 * validation_failed, `body.asset` listed among them.
 */
function assetRule(err: AppError): AppError {
  const only = err.details?.length === 1 ? err.details[0] : undefined;
  if (err.code === 'validation_failed' && only?.path === 'body.asset' && only.message === 'is required') {
    return new AppError('asset_required', 'asset is required: choose the asset the invoice is paid in');
  }
  return err;
}
