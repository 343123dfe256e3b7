/** The account's setup link and sign-in/sign-out: `/cabinet/v1/account/setup` and `/cabinet/v1/sessions`. */
import type {} from '@fastify/cookie';
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import { checkCredentials } from '../../owners/credentials.js';
import { completeSetup, normalizeEmail } from '../../owners/service.js';
import { sessionOf, type CabinetDeps } from '../context.js';
import { accountView } from '../service.js';
import { AccountSchema, CurrentSessionSchema, SessionBody, SessionQuery, SessionSchema, SetupBody } from '../schema.js';
import { endCabinetSession, SESSION_COOKIE, startSession } from '../sessions.js';

/** The cookie's scope: only the API sends and reads it, never the page's files. */
export const COOKIE_PATH = '/cabinet/v1';

export async function sessionRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const { db, clock } = deps.services;

  app.post(
    '/cabinet/v1/account/setup',
    {
      schema: {
        operationId: 'setUpAccount',
        tags: ['account'],
        summary: 'Choose the password with the one-time setup link',
        description:
          'The token of the link `paygate owner create` printed (valid 24 h, once). A used, expired or unknown token, or a disabled account: 401. Sign in afterwards with POST /cabinet/v1/sessions.',
        security: [],
        body: SetupBody,
        response: { 200: AccountSchema, ...errorResponses(400, 401, 429) },
      },
      config: { public: true },
    },
    async (req) => {
      const owner = await completeSetup(db, clock, req.body.setup_token, req.body.password);
      return accountView(db, owner);
    },
  );

  app.post(
    '/cabinet/v1/sessions',
    {
      schema: {
        operationId: 'signIn',
        tags: ['sessions'],
        summary: 'Sign in',
        description:
          "Wrong credentials, a disabled or not yet set up account, a missing or wrong second-factor code: 401, one body. With the second factor on, give `totp` or one of the account's one-time `recovery_code`s. Ten wrong codes in a row lock the second factor for 15 minutes: with the right password the answer is then 429 second_factor_locked with Retry-After, and no code is checked. The next sign-in reports the wrong codes since the previous one in `second_factor_failures`. Attempts are limited per client address and per account, across replicas when REDIS_URL is set (429 rate_limited with Retry-After). When the server cannot check a password or a code right now (its share of the hashing is full, or the TOTP key is missing): 503 service_unavailable, with Retry-After when it is the hashing. With `transport=cookie` (the web page) the token is set as an HttpOnly, SameSite=Strict cookie and the answer carries `csrf_token` instead of `token`.",
        security: [],
        querystring: SessionQuery,
        body: SessionBody,
        response: { 201: SessionSchema, ...errorResponses(400, 401, 429, 503) },
      },
      config: { public: true },
    },
    async (req, reply) => {
      await deps.signIn.perIp.spend(req.client);
      await deps.signIn.perAccount.spend(normalizeEmail(req.body.email) ?? req.body.email);
      const checks = { verifier: deps.services.verifier, box: deps.box };
      const { owner, notice } = await checkCredentials(db, clock, checks, req.body);
      const transport = req.query.transport ?? 'bearer';
      const s = await startSession(db, clock, owner, transport, req.ip);
      if (transport === 'bearer') return reply.code(201).send({ token: s.token, expires_at: s.expires_at, ...notice });
      void reply.setCookie(SESSION_COOKIE, s.token, {
        path: COOKIE_PATH,
        httpOnly: true,
        sameSite: 'strict',
        // Secure whatever the request's protocol: behind a TLS proxy that does not say so the
        // request looks like plain HTTP (config.ts cabinetInsecureCookie).
        secure: !deps.services.config.cabinetInsecureCookie,
      });
      return reply.code(201).send({ expires_at: s.expires_at, csrf_token: s.csrf_token as string, ...notice });
    },
  );

  app.get(
    '/cabinet/v1/sessions/current',
    {
      schema: {
        operationId: 'getSession',
        tags: ['sessions'],
        summary: 'The current session: its expiry and, for the cookie, its CSRF token',
        description:
          'The web page reads its CSRF token here after a reload. Every request of the session moves its end 12 h ahead, never past 7 days after sign-in.',
        response: { 200: CurrentSessionSchema, ...errorResponses(401, 429) },
      },
    },
    async (req) => {
      const s = sessionOf(req);
      return { transport: s.transport, expires_at: s.expiresAt, csrf_token: s.csrfToken };
    },
  );

  app.delete(
    '/cabinet/v1/sessions/current',
    {
      schema: {
        operationId: 'signOut',
        tags: ['sessions'],
        summary: 'Sign out: the session ends now',
        description: 'The token (or cookie) is refused from now on; the cookie is cleared.',
        response: { 204: { type: 'null', description: 'Signed out' }, ...errorResponses(401, 403, 429) },
      },
    },
    async (req, reply) => {
      const s = sessionOf(req);
      await endCabinetSession(db, clock, s);
      if (s.transport === 'cookie') void reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH });
      return reply.code(204).send();
    },
  );
}
