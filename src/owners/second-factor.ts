/**
 * The second factor at sign-in, once the password is right: a TOTP code or one of the account's
 * recovery codes. Wrong codes are counted in the database (every replica counts the same attempts,
 * docs/adr/0067-second-factor-guard.md); every tenth in a row locks the second factor for 15
 * minutes, during which no code is checked; each failure is audited; the next sign-in tells the
 * owner how many wrong codes came since the previous one. The lock and the counter are read and
 * written in the transaction that accepts or refuses the code, so concurrent guesses on several
 * replicas cannot slip past a lock another replica has just set.
 */
import { createHash, randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Tx } from '../db/database.js';
import { AppError } from '../errors.js';
import { openSecret, type SecretBox } from './secret-box.js';
import { cabinetUnauthorized } from './service.js';
import { deleteRecoveryCodes, findOwner, type OwnerRow } from './store.js';
import { totpStep } from './totp.js';

/** Wrong codes in a row that lock the second factor. */
export const LOCK_AFTER_FAILURES = 10;
export const LOCK_MS = 15 * 60_000;
/** Recovery codes handed out at enrolment. */
export const RECOVERY_CODES = 10;

export interface SecondFactorInput {
  totp?: string;
  recovery_code?: string;
}

/** What the owner is told at a sign-in: wrong codes since the previous one, and how it ended. */
export interface SignInNotice {
  second_factor_failures?: { attempts: number; locked_until: string | null };
  /** After a sign-in with a recovery code: how many are left unused. */
  recovery_codes_left?: number;
}

/** Locked: no code is checked until `until` (the password was right, so this says nothing new). */
export function secondFactorLocked(until: string, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((Date.parse(until) - now.getTime()) / 1000));
  return new AppError(
    'second_factor_locked',
    `Too many wrong second-factor codes: the second factor of this account is locked until ${until}; no code is checked before then`,
    { headers: { 'retry-after': String(seconds) } },
  );
}

/** 16 base32 characters (80 bits) in groups of four: `abcd-efgh-ijkl-mnop`. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = randomBytes(16);
  const chars = [...bytes].map((b) => alphabet[b & 31]).join('');
  return chars.match(/.{4}/g)!.join('-');
}

/** Spaces, dashes and case do not matter when a code is typed back. */
const recoveryHash = (code: string): string =>
  createHash('sha256').update(code.toLowerCase().replace(/[\s-]/g, '')).digest('hex');

/**
 * Replaces the account's recovery codes with RECOVERY_CODES new ones (in the enrolment's
 * transaction); returns the codes, shown once. Only their SHA-256 is stored: 80 random bits each,
 * so a digest cannot be walked back to its code.
 */
export async function newRecoveryCodes(trx: Tx, ownerId: string, at: string): Promise<string[]> {
  await deleteRecoveryCodes(trx, ownerId);
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  await trx
    .insertInto('owner_recovery_codes')
    .values(codes.map((c) => ({ owner_id: ownerId, code_hash: recoveryHash(c), created_at: at, used_at: null })))
    .execute();
  return codes;
}

async function recoveryCodesLeft(trx: Tx, ownerId: string): Promise<number> {
  const r = await trx
    .selectFrom('owner_recovery_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('owner_id', '=', ownerId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Checks the second factor of `owner` (whose password was right). Resolves to what the owner is
 * told; throws 401 for a missing or wrong code, 429 second_factor_locked during a lock, and 503
 * when the secret cannot be opened (no key, or another one).
 */
export async function checkSecondFactor(
  db: Db,
  clock: Clock,
  box: SecretBox | null,
  owner: OwnerRow,
  input: SecondFactorInput,
): Promise<SignInNotice> {
  if (input.totp === undefined && input.recovery_code === undefined) throw cabinetUnauthorized();
  // The code is computed outside the transaction; what it is worth is decided inside.
  const step =
    input.totp === undefined
      ? null
      : totpStep(openSecret(box, owner.id, owner.totp_secret as string), input.totp, clock.now());
  const outcome = await writeTx(db, async (trx) => {
    const row = await findOwner(trx, owner.id);
    if (!row || row.totp_enabled !== 1) return { ok: false as const };
    const now = clock.now();
    const at = now.toISOString();
    if (row.totp_locked_until !== null && row.totp_locked_until > at)
      return { ok: false as const, locked: row.totp_locked_until };
    let accepted = false;
    let kind: 'totp' | 'recovery_code' = 'totp';
    if (input.recovery_code !== undefined) {
      kind = 'recovery_code';
      const used = await trx
        .updateTable('owner_recovery_codes')
        .set({ used_at: at })
        .where('owner_id', '=', row.id)
        .where('code_hash', '=', recoveryHash(input.recovery_code))
        .where('used_at', 'is', null)
        .executeTakeFirst();
      accepted = used.numUpdatedRows > 0n;
    } else if (step !== null) {
      // A code is good once: the same code again (replayed, or a second sign-in racing) is refused.
      accepted = row.totp_last_counter === null || row.totp_last_counter < step;
    }
    if (accepted) {
      const notice: SignInNotice = {};
      if (row.totp_failures > 0)
        notice.second_factor_failures = { attempts: row.totp_failures, locked_until: row.totp_locked_until };
      await trx
        .updateTable('owners')
        .set({
          ...(kind === 'totp' ? { totp_last_counter: step } : {}),
          totp_failures: 0,
          totp_locked_until: null,
          updated_at: at,
        })
        .where('id', '=', row.id)
        .execute();
      if (kind === 'recovery_code') {
        notice.recovery_codes_left = await recoveryCodesLeft(trx, row.id);
        await recordAudit(trx, clock, {
          actor: `owner:${row.email}`,
          action: 'owner.recovery_code_use',
          subjectType: 'owner',
          subjectId: row.id,
          details: { recovery_codes_left: notice.recovery_codes_left },
        });
      }
      return { ok: true as const, notice };
    }
    const failures = row.totp_failures + 1;
    const lockedUntil =
      failures % LOCK_AFTER_FAILURES === 0 ? new Date(now.getTime() + LOCK_MS).toISOString() : row.totp_locked_until;
    await trx
      .updateTable('owners')
      .set({ totp_failures: failures, totp_locked_until: lockedUntil, updated_at: at })
      .where('id', '=', row.id)
      .execute();
    await recordAudit(trx, clock, {
      actor: `owner:${row.email}`,
      action: 'owner.second_factor_failure',
      subjectType: 'owner',
      subjectId: row.id,
      details: {
        kind,
        failures_in_a_row: failures,
        locked_until: failures % LOCK_AFTER_FAILURES === 0 ? lockedUntil : null,
      },
    });
    return { ok: false as const };
  });
  if (outcome.ok) return outcome.notice;
  if ('locked' in outcome && outcome.locked) throw secondFactorLocked(outcome.locked, clock.now());
  throw cabinetUnauthorized();
}
