/** A merchant's exceptions, as its owner sees and resolves them (docs/exceptions.md). */
import { Page } from '../../http/pagination.js';
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import { ExceptionSchema, OwnerExceptionListQuery, OwnerExceptionParams, ResolveBody } from '../schema.js';
import { OWNER_KINDS, pageExceptions, resolveByPerson } from '../service.js';
import { ownerActor, sessionOf, type CabinetDeps } from '../../cabinet/context.js';
import { ownedMerchantOf } from '../../cabinet/ownership.js';
import { MerchantParams } from '../../cabinet/schema.js';
import { EXCEPTIONS_CSV } from '../../cabinet/export-columns.js';
import { listResponse, sendListCsv, withFormat } from '../../cabinet/exports.js';

export async function exceptionRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const { db, clock } = deps.services;
  app.get(
    '/cabinet/v1/merchants/:merchant_id/exceptions',
    {
      schema: {
        operationId: 'listExceptions',
        tags: ['exceptions'],
        summary: 'Payments that went wrong, newest first: underpaid, overpaid, paid late, another asset',
        description: '`open=true`: those still needing attention. `kind` filters by kind.',
        params: MerchantParams,
        querystring: withFormat(OwnerExceptionListQuery),
        response: {
          200: listResponse(Page(ExceptionSchema, 'ExceptionPage'), EXCEPTIONS_CSV.columns),
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (req, reply) => {
      const { format, ...q } = req.query;
      const merchantId = ownedMerchantOf(req).id;
      const read = (p: { limit?: number; cursor?: string }) =>
        pageExceptions(db, { ...q, ...p, merchant_id: merchantId }, OWNER_KINDS);
      if (format !== 'csv') return read({});
      return sendListCsv(reply, merchantId, EXCEPTIONS_CSV, read, deps.exportPageSize);
    },
  );

  app.post(
    '/cabinet/v1/merchants/:merchant_id/exceptions/:exception_id/resolve',
    {
      schema: {
        operationId: 'resolveException',
        tags: ['exceptions'],
        summary: 'Mark an exception dealt with, with a note',
        description:
          '404 exception_not_found for an unknown id or another merchant’s; 409 invalid_state when it is resolved already.',
        params: OwnerExceptionParams,
        body: ResolveBody,
        response: { 200: ExceptionSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (req) => {
      const session = sessionOf(req);
      return resolveByPerson(db, clock, req.params.exception_id, req.body.note, {
        by: session.owner.id,
        actor: ownerActor(session),
        merchantId: ownedMerchantOf(req).id,
      });
    },
  );
}
