/** POST /v1/payouts and GET /v1/payouts/{id}. */
import type { Services } from '../../services.js';
import { errorResponses, UuidParams } from '../../http/schemas.js';
import { merchantOf, type ApiServer } from '../../http/server.js';
import { CreatePayoutBody, PayoutSchema } from '../schema.js';
import { createPayout, getPayout } from '../service.js';

export async function payoutRoutes(app: ApiServer, services: Services): Promise<void> {
  const deps = { db: services.db, clock: services.clock, catalog: services.catalog };

  app.post(
    '/v1/payouts',
    {
      schema: {
        operationId: 'createPayout',
        tags: ['payouts'],
        summary: 'Create a payout to a whitelisted address, or return the existing payout of the same reference',
        description:
          '202 for a new payout, 200 for the existing one (same body). The amount plus the payout fee is reserved from the available balance at creation.',
        body: CreatePayoutBody,
        response: { 200: PayoutSchema, 202: PayoutSchema, ...errorResponses(400, 401, 403, 409, 422, 429, 503) },
      },
    },
    async (req, reply) => {
      const merchant = merchantOf(req);
      const { payout, created } = await createPayout(deps, merchant, req.body);
      return reply.code(created ? 202 : 200).send(payout);
    },
  );

  app.get(
    '/v1/payouts/:id',
    {
      schema: {
        operationId: 'getPayout',
        tags: ['payouts'],
        summary: 'Current state of a payout',
        description:
          'The payout with its fees, review reasons, transaction hash and status. 404 payout_not_found also for a payout of another merchant.',
        params: UuidParams,
        response: { 200: PayoutSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => getPayout(deps, merchantOf(req).id, req.params.id),
  );
}
