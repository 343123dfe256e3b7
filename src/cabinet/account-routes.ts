/** The signed-in owner's account: `GET /cabinet/v1/account` and the TOTP enrolment. */
import { errorResponses } from '../http/schemas.js';
import type { ApiServer } from '../http/server.js';
import { confirmTotp, startTotpEnrolment } from '../owners/credentials.js';
import { sessionOf, type CabinetDeps } from './context.js';
import { accountView } from './service.js';
import { AccountSchema, TotpConfirmBody, TotpConfirmedSchema, TotpEnrolmentSchema } from './schema.js';

export async function accountRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const { db, clock } = deps.services;

  app.get(
    '/cabinet/v1/account',
    {
      schema: {
        operationId: 'getAccount',
        tags: ['account'],
        summary: "The owner's email, second factor on or off, and merchants",
        description: 'The merchants are those the operator gave this account (`paygate owner grant`).',
        response: { 200: AccountSchema, ...errorResponses(401, 429) },
      },
    },
    async (req) => accountView(db, sessionOf(req).owner),
  );

  app.post(
    '/cabinet/v1/account/totp',
    {
      schema: {
        operationId: 'startTotpEnrolment',
        tags: ['account'],
        summary: 'Start the TOTP enrolment: a secret and its otpauth:// URI',
        description:
          'The secret is kept aside, sealed, until POST /cabinet/v1/account/totp/confirm proves the authenticator has it; asking again replaces it. 409 invalid_state when the second factor is on already; 503 service_unavailable while the operator has not set CABINET_TOTP_KEY.',
        response: { 200: TotpEnrolmentSchema, ...errorResponses(401, 403, 409, 429, 503) },
      },
    },
    async (req) => startTotpEnrolment(db, clock, deps.box, sessionOf(req).owner.id),
  );

  app.post(
    '/cabinet/v1/account/totp/confirm',
    {
      schema: {
        operationId: 'confirmTotp',
        tags: ['account'],
        summary: "Turn the second factor on with the authenticator's first code",
        description:
          'A code that does not match is 400 validation_failed at body.code; without an enrolment under way, 409 invalid_state. From then on sign-in needs a code, and every other session of the account has ended (this one stays). The answer carries ten one-time `recovery_codes`, shown this once.',
        body: TotpConfirmBody,
        response: { 200: TotpConfirmedSchema, ...errorResponses(400, 401, 403, 409, 429, 503) },
      },
    },
    async (req) => {
      const session = sessionOf(req);
      const on = await confirmTotp(db, clock, deps.box, session.owner.id, req.body.code, session.tokenHash);
      return { ...(await accountView(db, on.owner)), recovery_codes: on.recoveryCodes };
    },
  );
}
