/**
 * The public listener: `/v1` only (never /admin or /cabinet). Check order: route (404) → per-IP
 * rate limit → authentication (401/403) → per-key rate limit → body (400/413/415) → validation
 * (400) → handler. The first four run in one onRequest hook, before fastify reads the body.
 */
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { keyIdOf } from '../keys/format.js';
import { unauthorized, type ApiKeyVerifier } from '../keys/verifier.js';
import type { MerchantRow } from '../merchants/store.js';
import { rateLimited, setRateHeaders, type RateState } from './rate-limit.js';
import type { SharedRateCounts } from './rate-counts.js';
import { buildSurface, type ApiServer } from './surface.js';
import { v1Document } from './v1-document.js';

export { BODY_LIMIT, requestIdOf, type ApiServer } from './surface.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated merchant; set for every non-public route before its handler runs. */
    merchant: MerchantRow | null;
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
  const { app } = await buildSurface({
    config: deps.config,
    logger: deps.logger,
    prefix: '/v1',
    document: v1Document(deps.config),
    perIp: { max: deps.config.rateLimitPerIp, store: deps.rateCounts?.store('v1') },
    trustProxy: deps.config.trustProxy,
    authenticate: (surface) => {
      const perKey = surface.limit(
        deps.config.rateLimitPerKey,
        (req) => `key:${keyIdOf(req.headers['x-api-key'] as string)}`,
      );
      return async (req, reply, ip) => {
        const given = req.headers['x-api-key'];
        // IPv6 clients spend the hashing budgets of their /64, as they do the per-IP limit; the
        // key's allowed networks are held against the client's own address (TRUST_PROXY decides).
        req.merchant = await deps.verifier.authenticate(
          typeof given === 'string' ? given : undefined,
          req.client,
          req.ip,
        );
        const key = await perKey(req);
        // The surface has shown the client's limit; shown again only when the key's is the nearer one.
        const shown = tighter(ip as RateState, key);
        if (shown !== ip) setRateHeaders(reply, shown);
        if (key.exceeded) throw rateLimited(key);
      };
    },
  });
  app.decorateRequest('merchant', null);
  await registerRoutes(app);
  return app;
}
