/**
 * The cabinet listener (CABINET_HOST:CABINET_PORT, loopback by default): /cabinet/v1 and the web
 * page at `/`, never on the public listener. Built by the one front door (src/http/surface.ts:
 * request ids, error body, 16 KiB strict JSON, route_not_found first, the security headers, the
 * per-IP limit); its credential is a session (bearer token or the page's cookie) instead of an API
 * key, and API answers are never cached. Every route with `:merchant_id` gets the owned merchant
 * from one hook (ownership.ts).
 */
import cookie from '@fastify/cookie';
import type {} from '@fastify/cookie';
import type { SharedRateCounts } from '../http/rate-counts.js';
import { buildSurface, type ApiServer } from '../http/surface.js';
import type { Services } from '../services.js';
import { sealLegacySecrets, secretsReport } from '../owners/credentials.js';
import { secretBox } from '../owners/secret-box.js';
import type { CabinetDeps } from './context.js';
import { EXPORT_PAGE_SIZE } from './exports.js';
import { cabinetDocument } from './openapi.js';
import { resolveOwnedMerchants } from './ownership.js';
import { registerPage } from './page.js';
import { registerCabinetRoutes } from './routes.js';
import { signInLimits } from './sign-in-limits.js';
import { assertCsrf, authenticateSession, CSRF_HEADER, SESSION_COOKIE } from './sessions.js';

export interface CabinetOptions {
  /** Sign-in attempts allowed per minute: per client address (default 20) and per account (default 10). */
  loginPerIp?: number;
  loginPerAccount?: number;
  /** Rows read per page of a list's CSV export (default: the lists' largest page). */
  exportPageSize?: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const BEARER = /^Bearer ([^\s]+)$/i;

/** The session cookie of a request's `Cookie` header (the cookie plugin parses it). */
function cookieOf(app: ApiServer, header: string | undefined): string | undefined {
  return header ? app.parseCookie(header)[SESSION_COOKIE] : undefined;
}

/**
 * Seals the TOTP secrets stored readable before sealing existed, and tells the operator of any
 * account whose second factor this server cannot check (no key, or another one than sealed it).
 */
async function checkTotpSecrets(services: Services, box: ReturnType<typeof secretBox>): Promise<void> {
  const log = services.logger.child({ component: 'cabinet' });
  if (box) {
    const sealed = await sealLegacySecrets(services.db, services.clock, box);
    if (sealed > 0) log.info({ sealed }, 'cabinet: TOTP secrets stored before sealing are sealed now');
  }
  const { unreadable, unsealed } = await secretsReport(services.db, box);
  if (unsealed > 0)
    log.warn(
      { accounts: unsealed },
      'cabinet: TOTP secrets are stored readable; set CABINET_TOTP_KEY (docs/operations/console.md) to seal them',
    );
  else if (unreadable > 0)
    log.error(
      { accounts: unreadable },
      'cabinet: TOTP secrets cannot be opened with this CABINET_TOTP_KEY (missing or not the one that sealed them): these owners cannot sign in',
    );
}

export async function buildCabinetServer(
  services: Services,
  opts: CabinetOptions = {},
  rateCounts: SharedRateCounts | null = null,
  instrument?: (app: ApiServer) => void,
): Promise<ApiServer> {
  const { app } = await buildSurface({
    config: services.config,
    logger: services.logger.child({ component: 'cabinet' }),
    prefix: '/cabinet/v1',
    document: cabinetDocument(services.config),
    perIp: { max: services.config.rateLimitPerIp, store: rateCounts?.store('cabinet') },
    // Its own proxy setting: the public listener's proxy is not the one in front of the cabinet.
    trustProxy: services.config.cabinetTrustProxy,
    noStore: true,
    authenticate: (surface) => async (req) => {
      const auth = req.headers.authorization;
      const bearer = typeof auth === 'string' ? BEARER.exec(auth)?.[1] : undefined;
      const session =
        auth !== undefined
          ? await authenticateSession(services.db, services.clock, bearer ?? '', 'bearer')
          : await authenticateSession(services.db, services.clock, cookieOf(surface.app, req.headers.cookie), 'cookie');
      if (!SAFE_METHODS.has(req.method)) {
        const given = req.headers[CSRF_HEADER];
        assertCsrf(session, typeof given === 'string' ? given : undefined);
      }
      req.cabinet = session;
    },
  });
  instrument?.(app);
  const box = secretBox(services.config.cabinetTotpKey);
  const deps: CabinetDeps = {
    services,
    signIn: signInLimits(
      { perIp: opts.loginPerIp ?? 20, perAccount: opts.loginPerAccount ?? 10 },
      services.clock,
      rateCounts,
    ),
    box,
    exportPageSize: opts.exportPageSize ?? EXPORT_PAGE_SIZE,
  };
  await checkTotpSecrets(services, box);
  app.decorateRequest('cabinet', null);
  // Only the session's own check reads the cookie (cookieOf): parsed there, not on every request.
  await app.register(cookie, { hook: false });
  resolveOwnedMerchants(app, services.db);
  await registerCabinetRoutes(app, deps);
  await registerPage(app, services.config.tronNetwork);
  return app;
}
