/** The owner's own security: `POST /cabinet/v1/account/password` and the account's sessions. */
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import { accountSessions, changePassword, endAccountSession } from '../account-security.js';
import { sessionOf, type CabinetDeps } from '../context.js';
import { AccountSessionList, PasswordBody, SessionParams } from '../schema-settings.js';
import { COOKIE_PATH } from './cabinet-sessions.js';
import { SESSION_COOKIE } from '../sessions.js';

export async function securityRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const { db, clock } = deps.services;

  app.post(
    '/cabinet/v1/account/password',
    {
      schema: {
        operationId: 'changePassword',
        tags: ['account'],
        summary: 'Change the password; every other session of the account ends',
        description:
          "A wrong current password is 401 current_password_incorrect (audited; this session stays signed in; attempts count against the account's sign-in limit, 429 with Retry-After). A new password shorter than 12 characters is 400 validation_failed at body.new_password, as at setup. Nothing is changed on any refusal.",
        body: PasswordBody,
        response: { 204: { type: 'null', description: 'Changed' }, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (req, reply) => {
      await changePassword(
        db,
        clock,
        { perAccount: deps.signIn.perAccount, verifier: deps.services.verifier },
        sessionOf(req),
        req.body,
      );
      return reply.code(204).send();
    },
  );

  app.get(
    '/cabinet/v1/account/sessions',
    {
      schema: {
        operationId: 'listAccountSessions',
        tags: ['sessions'],
        summary: "The account's live sessions, newest first, this one marked",
        description: 'Each with when it signed in, its last use and the client address it signed in from.',
        response: { 200: AccountSessionList, ...errorResponses(401, 429) },
      },
    },
    async (req) => ({
      data: (await accountSessions(db, clock, sessionOf(req))).map(({ tokenHash: _hash, ...view }) => view),
    }),
  );

  app.delete(
    '/cabinet/v1/account/sessions/:session_id',
    {
      schema: {
        operationId: 'endAccountSession',
        tags: ['sessions'],
        summary: 'End one session of the account now',
        description:
          "Its token (or cookie) is refused from the next request; ending this very session signs out. An ended, expired or unknown id, or another account's: 404 session_not_found.",
        params: SessionParams,
        response: { 204: { type: 'null', description: 'Ended' }, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      const s = sessionOf(req);
      const current = await endAccountSession(db, clock, s, req.params.session_id);
      if (current && s.transport === 'cookie') void reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH });
      return reply.code(204).send();
    },
  );
}
