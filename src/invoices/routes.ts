/** POST /v1/invoices and GET /v1/invoices/{id}. */
import type { Services } from '../services.js';
import { errorResponses, UuidParams } from '../http/schemas.js';
import { merchantOf, type ApiServer } from '../http/server.js';
import { WriteBatcher } from './batcher.js';
import { CreateInvoiceBody, InvoiceSchema } from './schema.js';
import { createInvoice, getInvoice } from './service.js';

export async function invoiceRoutes(app: ApiServer, services: Services): Promise<void> {
  const deps = { db: services.db, clock: services.clock, catalog: services.catalog, allocator: services.addresses, batcher: new WriteBatcher(services.db) };

  app.post(
    '/v1/invoices',
    {
      schema: {
        summary: 'Create an invoice, or return the existing invoice of the same order_id',
        description: '201 for a new invoice, 200 for the existing one (same body).',
        body: CreateInvoiceBody,
        response: { 200: InvoiceSchema, 201: InvoiceSchema, ...errorResponses(400, 401, 403, 409, 422, 429, 503) },
      },
    },
    async (req, reply) => {
      const merchant = merchantOf(req);
      const { invoice, created } = await createInvoice(deps, merchant, req.body);
      return reply.code(created ? 201 : 200).send(invoice);
    },
  );

  app.get(
    '/v1/invoices/:id',
    {
      schema: {
        summary: 'Current state of an invoice',
        params: UuidParams,
        response: { 200: InvoiceSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => {
      const merchant = merchantOf(req);
      return getInvoice(deps, merchant.id, req.params.id);
    },
  );
}
