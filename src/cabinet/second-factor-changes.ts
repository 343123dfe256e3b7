/**
 * The second factor's changes, each after the current password (a session alone is not enough: a
 * leaked token must not turn it on with someone else's authenticator, off, or read new recovery
 * codes): starting an enrolment (a new start replaces a pending one), turning it off (with a code
 * of the authenticator or an unused recovery code; the account's other sessions end) and new
 * recovery codes (the old ones stop working).
 */
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError, validationFailed } from '../errors.js';
import { startTotpEnrolment } from '../owners/credentials.js';
import { secondFactorOff } from '../owners/service.js';
import { checkSecondFactor, newRecoveryCodes } from '../owners/second-factor.js';
import type { SecretBox } from '../owners/secret-box.js';
import { deleteRecoveryCodes, endOwnerSessions, findOwner, updateOwner, type OwnerRow } from '../owners/store.js';
import type { TotpEnrolment } from '../owners/totp.js';
import { assertCurrentPassword, type PasswordChecks } from './account-security.js';
import { ownerActor } from './context.js';
import type { CabinetSession } from './sessions.js';

export interface SecondFactorDeps {
  db: Db;
  clock: Clock;
  box: SecretBox | null;
  checks: PasswordChecks;
}

export async function startEnrolment(
  deps: SecondFactorDeps,
  session: CabinetSession,
  currentPassword: string,
): Promise<TotpEnrolment> {
  const { db, clock } = deps;
  await assertCurrentPassword(db, clock, deps.checks, session, currentPassword, 'owner.totp_enable_refused');
  return startTotpEnrolment(db, clock, deps.box, session.owner.id);
}

function requireSecondFactorOn(owner: OwnerRow): void {
  if (owner.totp_enabled !== 1) throw new AppError('invalid_state', 'The second factor is off');
}

/**
 * Turns the second factor off: the password, then a current code (or an unused recovery code),
 * checked and counted as at sign-in; a wrong code is 400 validation_failed at body.code.
 */
export async function disableSecondFactor(
  deps: SecondFactorDeps,
  session: CabinetSession,
  body: { current_password: string; code: string },
): Promise<{ owner: OwnerRow; sessionsEnded: number }> {
  const { db, clock } = deps;
  const owner = await assertCurrentPassword(
    db,
    clock,
    deps.checks,
    session,
    body.current_password,
    'owner.totp_disable_refused',
  );
  requireSecondFactorOn(owner);
  const code = body.code.trim();
  const input = /^[0-9]{6}$/.test(code) ? { totp: code } : { recovery_code: code };
  try {
    await checkSecondFactor(db, clock, deps.box, owner, input);
  } catch (e) {
    if (e instanceof AppError && e.code === 'unauthorized')
      throw validationFailed('body.code', "is neither the authenticator's current code nor an unused recovery code");
    throw e;
  }
  return writeTx(db, async (trx) => {
    const now = clock.now().toISOString();
    const patch = secondFactorOff(now);
    await updateOwner(trx, owner.id, patch);
    await deleteRecoveryCodes(trx, owner.id);
    const ended = await endOwnerSessions(trx, owner.id, now, session.tokenHash);
    await recordAudit(trx, clock, {
      actor: ownerActor(session),
      action: 'owner.totp_disable',
      subjectType: 'owner',
      subjectId: owner.id,
      details: { other_sessions_ended: ended },
    });
    return { owner: { ...owner, ...patch }, sessionsEnded: ended };
  });
}

/** Ten new recovery codes, shown once; the old ones no longer sign in. */
export async function renewRecoveryCodes(
  deps: SecondFactorDeps,
  session: CabinetSession,
  currentPassword: string,
): Promise<string[]> {
  const { db, clock } = deps;
  const checked = await assertCurrentPassword(
    db,
    clock,
    deps.checks,
    session,
    currentPassword,
    'owner.recovery_codes_refused',
  );
  return writeTx(db, async (trx) => {
    const owner = await findOwner(trx, checked.id);
    if (!owner) throw new AppError('invalid_state', 'The account is gone');
    requireSecondFactorOn(owner);
    const codes = await newRecoveryCodes(trx, owner.id, clock.now().toISOString());
    await recordAudit(trx, clock, {
      actor: ownerActor(session),
      action: 'owner.recovery_codes_renew',
      subjectType: 'owner',
      subjectId: owner.id,
      details: { recovery_codes: codes.length },
    });
    return codes;
  });
}
