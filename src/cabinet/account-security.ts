/**
 * The owner's own security: changing the password (the current one first; every other session of
 * the account ends) and the account's sessions (listed, and ended one at a time). A session is
 * named by an id derived one-way from its stored digest: the id signs nothing in and leads to no
 * token.
 */
import argon2 from 'argon2';
import { createHash } from 'node:crypto';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError } from '../errors.js';
import type { ApiKeyVerifier } from '../keys/verifier.js';
import { ARGON2_OPTIONS } from '../keys/service.js';
import { endOwnerSessions, endSession, findOwner, updateOwner, type OwnerRow } from '../owners/store.js';
import { cabinetUnauthorized } from '../owners/service.js';
import { ownerActor } from './context.js';
import type { SignInLimit } from './sign-in-limits.js';
import { SESSION_MAX_MS, type CabinetSession } from './sessions.js';

export const sessionIdOf = (tokenHash: string): string =>
  createHash('sha256').update(`paygate cabinet session id\0${tokenHash}`).digest('hex').slice(0, 32);

export interface PasswordChecks {
  perAccount: SignInLimit;
  verifier: Pick<ApiKeyVerifier, 'verifyPassword'>;
}

/**
 * A change of the account's security needs the current password, not a session alone (a leaked
 * token cannot take the account over): wrong, it is 401 current_password_incorrect, audited as
 * `refused`, counted against the account's sign-in limit and checked in the password share of the
 * bounded hashing, as sign-ins are.
 */
export async function assertCurrentPassword(
  db: Db,
  clock: Clock,
  checks: PasswordChecks,
  session: CabinetSession,
  password: string,
  refused: string,
): Promise<OwnerRow> {
  const owner = await findOwner(db, session.owner.id);
  if (!owner?.password_hash) throw cabinetUnauthorized();
  await checks.perAccount.spend(owner.email);
  if (await checks.verifier.verifyPassword(owner.password_hash, password)) return owner;
  await writeTx(db, (trx) =>
    recordAudit(trx, clock, {
      actor: ownerActor(session),
      action: refused,
      subjectType: 'owner',
      subjectId: owner.id,
      details: { reason: 'current password incorrect' },
    }),
  );
  throw new AppError('current_password_incorrect', 'The current password is not correct; nothing was changed');
}

/**
 * The current password must match (wrong: 401 current_password_incorrect, audited, and counted
 * against the account's sign-in limit so it is no faster a guessing oracle than sign-in; checked in
 * the password share of the bounded hashing, as sign-ins are); the new
 * one is hashed before the transaction, which writes it, ends every other session and audits.
 */
export async function changePassword(
  db: Db,
  clock: Clock,
  checks: PasswordChecks,
  session: CabinetSession,
  body: { current_password: string; new_password: string },
): Promise<number> {
  const owner = await assertCurrentPassword(
    db,
    clock,
    checks,
    session,
    body.current_password,
    'owner.password_change_refused',
  );
  const hash = await argon2.hash(body.new_password, ARGON2_OPTIONS);
  return writeTx(db, async (trx) => {
    const now = clock.now().toISOString();
    await updateOwner(trx, owner.id, { password_hash: hash, updated_at: now });
    const ended = await endOwnerSessions(trx, owner.id, now, session.tokenHash);
    await recordAudit(trx, clock, {
      actor: ownerActor(session),
      action: 'owner.password_change',
      subjectType: 'owner',
      subjectId: owner.id,
      details: { other_sessions_ended: ended },
    });
    return ended;
  });
}

/** The account's live sessions, newest first, this one marked (owner_sessions_owner). */
export async function accountSessions(db: Db, clock: Clock, session: CabinetSession) {
  const now = clock.now();
  const rows = await db
    .selectFrom('owner_sessions')
    .selectAll()
    .where('owner_id', '=', session.owner.id)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .where('created_at', '>', new Date(now.getTime() - SESSION_MAX_MS).toISOString())
    .orderBy('created_at', 'desc')
    .orderBy('token_hash')
    .execute();
  return rows.map((r) => ({
    session_id: sessionIdOf(r.token_hash),
    transport: r.transport,
    created_at: r.created_at,
    last_used_at: r.last_seen_at,
    expires_at: r.expires_at,
    address: r.client_address ?? null,
    current: r.token_hash === session.tokenHash,
    tokenHash: r.token_hash,
  }));
}

/** Ends one live session of the account (this one too, as signing out); another's or an ended one: session_not_found. */
export async function endAccountSession(db: Db, clock: Clock, session: CabinetSession, id: string): Promise<boolean> {
  const target = (await accountSessions(db, clock, session)).find((s) => s.session_id === id);
  if (!target) throw new AppError('session_not_found', `No live session of this account has the id ${id}`);
  await writeTx(db, async (trx) => {
    await endSession(trx, target.tokenHash, clock.now().toISOString());
    await recordAudit(trx, clock, {
      actor: ownerActor(session),
      action: 'owner.session_end',
      subjectType: 'owner',
      subjectId: session.owner.id,
      details: { session_id: id, current: target.current },
    });
  });
  return target.current;
}
