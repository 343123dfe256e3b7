/**
 * Sign-in checks (email, password, second factor) and the TOTP enrolment. A wrong email, a wrong
 * password, a disabled or not yet set up account, a missing or wrong code: all the same 401, and
 * an unknown email costs the same argon2id verification as a known one.
 */
import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError, validationFailed } from '../errors.js';
import { ARGON2_OPTIONS } from '../keys/service.js';
import { cabinetUnauthorized, normalizeEmail } from './service.js';
import {
  advanceTotpCounter,
  endOwnerSessions,
  findOwner,
  findOwnerByEmail,
  updateOwner,
  type OwnerRow,
} from './store.js';
import { newTotpSecret, totpStep, type TotpEnrolment } from './totp.js';

let decoy: Promise<string> | null = null;
/** A hash no password matches in practice, verified for unknown emails so they take as long. */
const decoyHash = () => (decoy ??= argon2.hash(randomBytes(32).toString('hex'), ARGON2_OPTIONS));

export interface Credentials {
  email: string;
  password: string;
  totp?: string;
}

export async function checkCredentials(db: Db, clock: Clock, c: Credentials): Promise<OwnerRow> {
  const email = normalizeEmail(c.email);
  const owner = email ? await findOwnerByEmail(db, email) : undefined;
  const stored = owner?.password_hash ?? (await decoyHash());
  const passwordOk = await argon2.verify(stored, c.password);
  if (!owner || !owner.password_hash || owner.disabled_at || !passwordOk) throw cabinetUnauthorized();
  if (owner.totp_enabled === 1) {
    const step = c.totp === undefined ? null : totpStep(owner.totp_secret as string, c.totp, clock.now());
    if (step === null) throw cabinetUnauthorized();
    // A code is good once: the same code again (replayed, or a second sign-in racing) is refused.
    const fresh = await writeTx(db, (trx) => advanceTotpCounter(trx, owner.id, step, clock.now().toISOString()));
    if (!fresh) throw cabinetUnauthorized();
  }
  return owner;
}

async function requireOwnerRow(db: Db, ownerId: string): Promise<OwnerRow> {
  const owner = await findOwner(db, ownerId);
  if (!owner) throw cabinetUnauthorized();
  return owner;
}

/**
 * Starts the enrolment: a new secret, kept aside until a first code confirms it. Asking again
 * replaces the secret not yet confirmed. With the second factor on already: invalid_state.
 */
export async function startTotpEnrolment(db: Db, clock: Clock, ownerId: string): Promise<TotpEnrolment> {
  const owner = await requireOwnerRow(db, ownerId);
  if (owner.totp_enabled === 1)
    throw new AppError('invalid_state', 'The second factor is on already; the operator can reset the account');
  const enrolment = newTotpSecret(owner.email);
  await writeTx(db, (trx) =>
    updateOwner(trx, owner.id, { totp_pending_secret: enrolment.secret, updated_at: clock.now().toISOString() }),
  );
  return enrolment;
}

/**
 * A first code from the authenticator turns the second factor on, and ends every other session
 * of the account (one opened with the password alone, perhaps by whoever else knows it); the
 * session of `currentTokenHash`, which turned it on, stays.
 */
export async function confirmTotp(
  db: Db,
  clock: Clock,
  ownerId: string,
  code: string,
  currentTokenHash: string,
): Promise<OwnerRow> {
  return writeTx(db, async (trx) => {
    const owner = await findOwner(trx, ownerId);
    if (!owner) throw cabinetUnauthorized();
    if (owner.totp_enabled === 1) throw new AppError('invalid_state', 'The second factor is on already');
    const secret = owner.totp_pending_secret;
    if (!secret) throw new AppError('invalid_state', 'No enrolment is under way: POST /cabinet/v1/account/totp first');
    const step = totpStep(secret, code, clock.now());
    if (step === null) throw validationFailed('body.code', "is not the authenticator's current code for this secret");
    const now = clock.now().toISOString();
    const patch = {
      totp_secret: secret,
      totp_enabled: 1,
      totp_pending_secret: null,
      totp_last_counter: step,
      updated_at: now,
    };
    await updateOwner(trx, owner.id, patch);
    const ended = await endOwnerSessions(trx, owner.id, now, currentTokenHash);
    await recordAudit(trx, clock, {
      actor: `owner:${owner.email}`,
      action: 'owner.totp_enable',
      subjectType: 'owner',
      subjectId: owner.id,
      details: { other_sessions_ended: ended },
    });
    return { ...owner, ...patch };
  });
}
