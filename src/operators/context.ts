/** What every console route uses: the server type and the authenticated operator of a request. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { unauthorized, type Operator } from './verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The operator token of a console request; set before every non-public console route. */
    operator: Operator | null;
  }
}

export type ConsoleServer = FastifyInstance<
  Server,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** The actor of a console change in the audit log: the token id. */
export function actorOf(req: FastifyRequest): string {
  if (!req.operator) throw unauthorized();
  return req.operator.tokenId;
}
