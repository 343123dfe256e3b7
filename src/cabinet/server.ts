/**
 * The cabinet listener (CABINET_HOST:CABINET_PORT, loopback by default): /cabinet/v1 and the web
 * page at `/`, never on the public listener. It follows the /v1 conventions through the same base
 * (request ids, error body, 16 KiB strict JSON, route_not_found first, per-IP limit); its
 * credential is a session (bearer token or the page's cookie) instead of an API key. Every answer
 * carries a strict Content-Security-Policy; API answers are never cached.
 */
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type {} from '@fastify/cookie';
import { HashBudget } from '../keys/hash-budget.js';
import { createJsonServer, frontChecks, type ApiServer } from '../http/base.js';
import type { SharedRateCounts } from '../http/rate-counts.js';
import type { Services } from '../services.js';
import type { CabinetDeps } from './context.js';
import { cabinetSwaggerOptions } from './openapi.js';
import { registerPage, SECURITY_HEADERS } from './page.js';
import { registerCabinetRoutes } from './routes.js';
import { assertCsrf, authenticateSession, CSRF_HEADER, SESSION_COOKIE } from './sessions.js';

export interface CabinetOptions {
  /** Sign-in attempts allowed per minute: per client address (default 20) and per account (default 10). */
  loginPerIp?: number;
  loginPerAccount?: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const BEARER = /^Bearer ([^\s]+)$/i;

export async function buildCabinetServer(
  services: Services,
  opts: CabinetOptions = {},
  rateCounts: SharedRateCounts | null = null,
): Promise<ApiServer> {
  const server = await createJsonServer({
    config: services.config,
    logger: services.logger.child({ component: 'cabinet' }),
    rateStore: rateCounts?.store('cabinet'),
  });
  const { app } = server;
  const deps: CabinetDeps = {
    services,
    loginPerIp: new HashBudget(opts.loginPerIp ?? 20, 60_000, services.clock),
    loginPerAccount: new HashBudget(opts.loginPerAccount ?? 10, 60_000, services.clock),
  };
  app.decorateRequest('cabinet', null);
  app.decorateRequest('client', '');
  await app.register(cookie);

  app.addHook('onRequest', async (req, reply) => {
    void reply.headers(SECURITY_HEADERS);
    if (req.url.startsWith('/cabinet/')) reply.header('cache-control', 'no-store');
    // Ids are stored in lower case: an upper-case spelling names the same record. Asset codes are upper case.
    const params = req.params as Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(params ?? {}))
      if (name !== 'asset' && typeof value === 'string')
        (params as Record<string, unknown>)[name] = value.toLowerCase();
    const ip = await frontChecks(server, req, reply);
    req.client = ip.key;
    // The page's files and the public routes need no session; every other /cabinet/v1 route does.
    if (req.routeOptions.config.public || !req.routeOptions.url?.startsWith('/cabinet/v1/')) return;
    const auth = req.headers.authorization;
    const bearer = typeof auth === 'string' ? BEARER.exec(auth)?.[1] : undefined;
    const session =
      auth !== undefined
        ? await authenticateSession(services.db, services.clock, bearer ?? '', 'bearer')
        : await authenticateSession(services.db, services.clock, req.cookies[SESSION_COOKIE], 'cookie');
    if (!SAFE_METHODS.has(req.method)) {
      const given = req.headers[CSRF_HEADER];
      assertCsrf(session, typeof given === 'string' ? given : undefined);
    }
    req.cabinet = session;
  });

  await app.register(swagger, cabinetSwaggerOptions(services.config));
  app.get('/cabinet/v1/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
  await registerCabinetRoutes(app, deps);
  await registerPage(app);
  return app;
}
