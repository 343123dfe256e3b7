/** The console's exceptions: every kind, every merchant (`paygate exception list|resolve`). */
import { ExceptionListQuery, ExceptionParams, ExceptionSchema, ResolveBody } from '../schema.js';
import { pageExceptions, resolveByPerson } from '../service.js';
import type { Services } from '../../services.js';
import { actorOf, type ConsoleServer } from '../../operators/context.js';
import { bodyErrors, errors, Page } from '../../operators/schemas/common.js';

const tags = ['exceptions'];

export async function exceptionRoutes(app: ConsoleServer, s: Services): Promise<void> {
  app.get(
    '/admin/v1/exceptions',
    {
      schema: {
        operationId: 'listExceptions',
        tags,
        summary: 'Exceptions of every kind, newest first (exception list)',
        description: '`open=true`: those still needing attention; `merchant_id` and `kind` filter.',
        querystring: ExceptionListQuery,
        response: { 200: Page(ExceptionSchema, 'ExceptionPage'), ...errors() },
      },
    },
    async (req) => pageExceptions(s.db, req.query),
  );

  app.post(
    '/admin/v1/exceptions/:exception_id/resolve',
    {
      schema: {
        operationId: 'resolveException',
        tags,
        summary: 'Mark an exception dealt with, with a note (exception resolve)',
        description: '404 exception_not_found; 409 invalid_state when it is resolved already.',
        params: ExceptionParams,
        body: ResolveBody,
        response: { 200: ExceptionSchema, ...bodyErrors(403, 404, 409) },
      },
    },
    async (req) => {
      const actor = actorOf(req);
      return resolveByPerson(s.db, s.clock, req.params.exception_id, req.body.note, { by: actor, actor });
    },
  );
}
