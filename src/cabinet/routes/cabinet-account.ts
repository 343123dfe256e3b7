/** The signed-in owner's account: `GET /cabinet/v1/account` and the second factor (on, off, recovery codes). */
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import { confirmTotp } from '../../owners/credentials.js';
import { sessionOf, type CabinetDeps } from '../context.js';
import { accountView } from '../service.js';
import {
  AccountSchema,
  RecoveryCodesBody,
  RecoveryCodesSchema,
  TotpConfirmBody,
  TotpConfirmedSchema,
  TotpDisableBody,
  TotpEnrolmentSchema,
  TotpStartBody,
} from '../schema.js';
import {
  disableSecondFactor,
  renewRecoveryCodes,
  startEnrolment,
  type SecondFactorDeps,
} from '../second-factor-changes.js';

export async function accountRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const { db, clock } = deps.services;
  const secondFactor: SecondFactorDeps = {
    db,
    clock,
    box: deps.box,
    checks: { perAccount: deps.signIn.perAccount, verifier: deps.services.verifier },
  };
  const PASSWORD_REFUSAL =
    "A wrong current_password is 401 current_password_incorrect (audited; this session stays signed in; attempts count against the account's sign-in limit, 429 with Retry-After); nothing changes on any refusal.";

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
        summary: 'Start the TOTP enrolment with the current password: a secret and its otpauth:// URI',
        description: `The secret is kept aside, sealed, until POST /cabinet/v1/account/totp/confirm proves the authenticator has it; asking again replaces it. 409 invalid_state when the second factor is on already; 503 service_unavailable while the operator has not set CABINET_TOTP_KEY. ${PASSWORD_REFUSAL}`,
        body: TotpStartBody,
        response: { 200: TotpEnrolmentSchema, ...errorResponses(400, 401, 403, 409, 429, 503) },
      },
    },
    async (req) => startEnrolment(secondFactor, sessionOf(req), req.body.current_password),
  );

  app.post(
    '/cabinet/v1/account/totp/disable',
    {
      schema: {
        operationId: 'disableTotp',
        tags: ['account'],
        summary: 'Turn the second factor off with the current password and a code; every other session ends',
        description: `The code is the authenticator's current one or an unused recovery code, checked and counted as at sign-in (wrong: 400 validation_failed at body.code; during a lock, 429 second_factor_locked). The recovery codes are deleted. 409 invalid_state when the second factor is off. ${PASSWORD_REFUSAL}`,
        body: TotpDisableBody,
        response: { 200: AccountSchema, ...errorResponses(400, 401, 403, 409, 429, 503) },
      },
    },
    async (req) => {
      const off = await disableSecondFactor(secondFactor, sessionOf(req), req.body);
      return accountView(db, off.owner);
    },
  );

  app.post(
    '/cabinet/v1/account/recovery-codes',
    {
      schema: {
        operationId: 'renewRecoveryCodes',
        tags: ['account'],
        summary: 'Ten new recovery codes with the current password; the old ones stop working',
        description: `Shown this once. 409 invalid_state when the second factor is off. ${PASSWORD_REFUSAL}`,
        body: RecoveryCodesBody,
        response: { 200: RecoveryCodesSchema, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (req) => ({
      recovery_codes: await renewRecoveryCodes(secondFactor, sessionOf(req), req.body.current_password),
    }),
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
