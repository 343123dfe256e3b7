/**
 * The public listener: `/v1` only (never /admin or /cabinet). Check order: route (404) → per-IP
 * rate limit → authentication (401/403) → per-key rate limit → body (400/413/415) → validation
 * (400) → handler. The first four run in one onRequest hook, before fastify reads the body.
 */
import swagger from '@fastify/swagger';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { keyIdOf } from '../keys/format.js';
import { unauthorized, type ApiKeyVerifier } from '../keys/verifier.js';
import type { MerchantRow } from '../merchants/store.js';
import {
  createJsonServer,
  frontChecks,
  rateCheck,
  rateLimited,
  setRateHeaders,
  type ApiServer,
  type RateState,
} from './base.js';
import { swaggerOptions } from './openapi.js';
import type { SharedRateCounts } from './rate-counts.js';

export { BODY_LIMIT, requestIdOf, type ApiServer } from './base.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated merchant; set for every non-public route before its handler runs. */
    merchant: MerchantRow | null;
  }
  interface FastifyContextConfig {
    /** A route that needs no credentials (the OpenAPI documents, the cabinet's sign-in). */
    public?: boolean;
  }
}

/** The authenticated merchant of a non-public route (the onRequest hook has set it). */
export function merchantOf(req: FastifyRequest): MerchantRow {
  if (!req.merchant) throw unauthorized();
  return req.merchant;
}

export interface HttpDeps {
  config: Config;
  logger: Logger;
  verifier: ApiKeyVerifier;
  /** The counters shared by the replicas (REDIS_URL); null: counted in this process. */
  rateCounts?: SharedRateCounts | null;
}

/** The limit an authenticated client is shown: the key's once it is past it, else the nearer one. */
function tighter(ip: RateState, key: RateState): RateState {
  if (key.exceeded) return key;
  return key.remaining < ip.remaining ? key : ip;
}

export async function buildHttpServer(
  deps: HttpDeps,
  registerRoutes: (app: ApiServer) => Promise<void>,
): Promise<ApiServer> {
  const server = await createJsonServer({ ...deps, rateStore: deps.rateCounts?.store('v1') });
  const { app } = server;
  app.decorateRequest('merchant', null);
  const perKey = rateCheck(
    app,
    deps.config.rateLimitPerKey,
    (req) => `key:${keyIdOf(req.headers['x-api-key'] as string)}`,
  );

  app.addHook('onRequest', async (req, reply) => {
    // Path ids are UUIDs stored in lower case: an upper-case spelling names the same record.
    const params = req.params as Record<string, unknown> | undefined;
    if (typeof params?.id === 'string') params.id = params.id.toLowerCase();
    const ip = await frontChecks(server, req, reply);
    if (req.routeOptions.config.public) return;
    const given = req.headers['x-api-key'];
    // IPv6 clients spend the hashing budgets of their /64, as they do the per-IP limit; the key's
    // allowed networks are held against the client's own address (TRUST_PROXY decides which).
    req.merchant = await deps.verifier.authenticate(typeof given === 'string' ? given : undefined, ip.key, req.ip);
    const key = await perKey(req);
    // frontChecks has shown the client's limit; shown again only when the key's is the nearer one.
    const shown = tighter(ip, key);
    if (shown !== ip) setRateHeaders(reply, shown);
    if (key.exceeded) throw rateLimited(key);
  });

  await app.register(swagger, swaggerOptions(deps.config));

  app.get('/v1/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
  await registerRoutes(app);
  return app;
}
