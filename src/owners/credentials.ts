/**
 * Sign-in checks (email, password, second factor) and the TOTP enrolment. A wrong email, a wrong
 * password, a disabled or not yet set up account, a missing or wrong code: all the same 401, and
 * an unknown email costs the same argon2id verification as a known one. Every password check runs
 * in the password share of the bounded hashing (src/keys/verifier.ts), so sign-ins never starve
 * the API keys' checks; the second factor is src/owners/second-factor.ts.
 */
import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError, validationFailed } from '../errors.js';
import { ARGON2_OPTIONS } from '../keys/service.js';
import type { ApiKeyVerifier } from '../keys/verifier.js';
import { checkSecondFactor, newRecoveryCodes, type SignInNotice } from './second-factor.js';
import { isSealed, openSecret, type SecretBox } from './secret-box.js';
import { cabinetUnauthorized, normalizeEmail } from './service.js';
import { endOwnerSessions, findOwner, findOwnerByEmail, updateOwner, type OwnerRow } from './store.js';
import { newTotpSecret, totpStep, type TotpEnrolment } from './totp.js';

let decoy: Promise<string> | null = null;
/** A hash no password matches in practice, verified for unknown emails so they take as long. */
const decoyHash = () => (decoy ??= argon2.hash(randomBytes(32).toString('hex'), ARGON2_OPTIONS));

export interface Credentials {
  email: string;
  password: string;
  totp?: string;
  recovery_code?: string;
}

/** What checks a sign-in: the password share of the bounded hashing, and the TOTP secrets' key. */
export interface SignInChecks {
  verifier: ApiKeyVerifier;
  box: SecretBox | null;
}

export async function checkCredentials(
  db: Db,
  clock: Clock,
  checks: SignInChecks,
  c: Credentials,
): Promise<{ owner: OwnerRow; notice: SignInNotice }> {
  const email = normalizeEmail(c.email);
  const owner = email ? await findOwnerByEmail(db, email) : undefined;
  const stored = owner?.password_hash ?? (await decoyHash());
  const passwordOk = await checks.verifier.verifyPassword(stored, c.password);
  if (!owner || !owner.password_hash || owner.disabled_at || !passwordOk) throw cabinetUnauthorized();
  if (owner.totp_enabled !== 1) return { owner, notice: {} };
  return { owner, notice: await checkSecondFactor(db, clock, checks.box, owner, c) };
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
export async function startTotpEnrolment(
  db: Db,
  clock: Clock,
  box: SecretBox | null,
  ownerId: string,
): Promise<TotpEnrolment> {
  const owner = await requireOwnerRow(db, ownerId);
  if (owner.totp_enabled === 1)
    throw new AppError('invalid_state', 'The second factor is on already; the operator can reset the account');
  // A secret is never stored readable: without the key there is no enrolment.
  if (!box)
    throw new AppError(
      'service_unavailable',
      'The second factor cannot be turned on here yet: the operator has not set CABINET_TOTP_KEY',
    );
  const enrolment = newTotpSecret(owner.email);
  const sealed = box.seal(owner.id, enrolment.secret);
  await writeTx(db, (trx) =>
    updateOwner(trx, owner.id, { totp_pending_secret: sealed, updated_at: clock.now().toISOString() }),
  );
  return enrolment;
}

/**
 * A first code from the authenticator turns the second factor on, hands out the account's
 * recovery codes (shown once), and ends every other session of the account (one opened with the
 * password alone, perhaps by whoever else knows it); the session of `currentTokenHash`, which
 * turned it on, stays.
 */
export async function confirmTotp(
  db: Db,
  clock: Clock,
  box: SecretBox | null,
  ownerId: string,
  code: string,
  currentTokenHash: string,
): Promise<{ owner: OwnerRow; recoveryCodes: string[] }> {
  return writeTx(db, async (trx) => {
    const owner = await findOwner(trx, ownerId);
    if (!owner) throw cabinetUnauthorized();
    if (owner.totp_enabled === 1) throw new AppError('invalid_state', 'The second factor is on already');
    const secret = owner.totp_pending_secret;
    if (!secret) throw new AppError('invalid_state', 'No enrolment is under way: POST /cabinet/v1/account/totp first');
    const step = totpStep(openSecret(box, owner.id, secret), code, clock.now());
    if (step === null) throw validationFailed('body.code', "is not the authenticator's current code for this secret");
    const now = clock.now().toISOString();
    const patch = {
      totp_secret: secret,
      totp_enabled: 1,
      totp_pending_secret: null,
      totp_last_counter: step,
      totp_failures: 0,
      totp_locked_until: null,
      updated_at: now,
    };
    await updateOwner(trx, owner.id, patch);
    const recoveryCodes = await newRecoveryCodes(trx, owner.id, now);
    const ended = await endOwnerSessions(trx, owner.id, now, currentTokenHash);
    await recordAudit(trx, clock, {
      actor: `owner:${owner.email}`,
      action: 'owner.totp_enable',
      subjectType: 'owner',
      subjectId: owner.id,
      details: { other_sessions_ended: ended, recovery_codes: recoveryCodes.length },
    });
    return { owner: { ...owner, ...patch }, recoveryCodes };
  });
}

/**
 * Seals the TOTP secrets written before sealing (plain base32 in the row), in one transaction at
 * start. Each row is rewritten only if it still holds the plain value read (compare-and-set), so
 * replicas starting together, or a sign-in racing, never lose a secret. Returns how many.
 */
export async function sealLegacySecrets(db: Db, clock: Clock, box: SecretBox): Promise<number> {
  return writeTx(db, async (trx) => {
    const rows = await trx
      .selectFrom('owners')
      .select(['id', 'email', 'totp_secret', 'totp_pending_secret'])
      .where((eb) => eb.or([eb('totp_secret', 'is not', null), eb('totp_pending_secret', 'is not', null)]))
      .execute();
    let sealed = 0;
    for (const row of rows) {
      for (const column of ['totp_secret', 'totp_pending_secret'] as const) {
        const plain = row[column];
        if (plain === null || isSealed(plain)) continue;
        const r = await trx
          .updateTable('owners')
          .set({ [column]: box.seal(row.id, plain) })
          .where('id', '=', row.id)
          .where(column, '=', plain)
          .executeTakeFirst();
        if (r.numUpdatedRows > 0n && column === 'totp_secret') {
          sealed += 1;
          await recordAudit(trx, clock, {
            actor: 'system',
            action: 'owner.totp_secret_seal',
            subjectType: 'owner',
            subjectId: row.id,
            details: { email: row.email },
          });
        }
      }
    }
    return sealed;
  });
}

/**
 * Accounts with the second factor on whose secret this server cannot open (no key, or another
 * key: their sign-ins answer 503), and those whose secret is still stored readable (no key yet).
 */
export async function secretsReport(db: Db, box: SecretBox | null): Promise<{ unreadable: number; unsealed: number }> {
  const rows = await db.selectFrom('owners').select(['id', 'totp_secret']).where('totp_enabled', '=', 1).execute();
  const report = { unreadable: 0, unsealed: 0 };
  for (const row of rows) {
    const stored = row.totp_secret as string;
    if (!isSealed(stored)) report.unsealed += 1;
    try {
      openSecret(box, row.id, stored);
    } catch {
      report.unreadable += 1;
    }
  }
  return report;
}
