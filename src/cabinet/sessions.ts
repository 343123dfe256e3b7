/**
 * Cabinet sessions. A session token is 32 random bytes (base64url); only its SHA-256 is stored, and
 * a request finds its session by that digest (an index lookup of a digest tells an attacker nothing
 * about any token). A session ends 12 h after its last request, 7 days after sign-in whatever the
 * activity (a stolen token cannot be kept alive by polling), at sign-out, when the owner turns the
 * second factor on (every other session of the account), or when the operator disables or resets
 * the account; its owner row is read with it on every request.
 *
 * Two transports, fixed when the session starts: `bearer` (`Authorization: Bearer <token>`, the
 * API) and `cookie` (the web page: an HttpOnly, SameSite=Strict cookie the page's script never
 * sees). A cookie is sent by the browser on its own, so every state-changing request that relies
 * on it must also carry `X-CSRF-Token`: a value derived from the session token that the page gets
 * at sign-in (and from `GET /cabinet/v1/sessions/current`) and that another site cannot read.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import type { SessionTransport } from '../db/tables/cabinet.js';
import { AppError } from '../errors.js';
import { cabinetUnauthorized, sha256Hex } from '../owners/service.js';
import { endSession, findSessionWithOwner, insertSession, touchSession, type OwnerRow } from '../owners/store.js';

/** A session ends this long after its last request. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** A session ends this long after sign-in, however active. */
export const SESSION_MAX_MS = 7 * 24 * 3_600_000;
/** The last request is recorded at most this often (the page polls every few seconds). */
const TOUCH_EVERY_MS = 60_000;
export const SESSION_COOKIE = 'paygate_session';
export const CSRF_HEADER = 'x-csrf-token';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface CabinetSession {
  owner: OwnerRow;
  tokenHash: string;
  transport: SessionTransport;
  expiresAt: string;
  /** The value X-CSRF-Token must carry (cookie sessions only). */
  csrfToken: string | null;
}

/** The CSRF token of a cookie session: a one-way derivation of its token, so nothing more is stored. */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`paygate cabinet csrf\0${sessionToken}`).digest('base64url');
}

export interface StartedSession {
  token: string;
  expires_at: string;
  csrf_token: string | null;
}

export async function startSession(
  db: Db,
  clock: Clock,
  owner: OwnerRow,
  transport: SessionTransport,
  clientAddress: string | null = null,
): Promise<StartedSession> {
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_IDLE_MS).toISOString();
  await writeTx(db, (trx) =>
    insertSession(trx, {
      token_hash: sha256Hex(token),
      owner_id: owner.id,
      transport,
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: expiresAt,
      ended_at: null,
      client_address: clientAddress,
    }),
  );
  return { token, expires_at: expiresAt, csrf_token: transport === 'cookie' ? csrfTokenOf(token) : null };
}

/**
 * The live session of `token` presented by `transport`; anything else (malformed, unknown, ended,
 * idle too long, another transport's token, a disabled account) is the one 401.
 */
export async function authenticateSession(
  db: Db,
  clock: Clock,
  token: string | undefined,
  transport: SessionTransport,
): Promise<CabinetSession> {
  if (token === undefined || !TOKEN.test(token)) throw cabinetUnauthorized();
  const tokenHash = sha256Hex(token);
  const found = await findSessionWithOwner(db, tokenHash);
  const now = clock.now();
  if (
    !found ||
    found.session.ended_at !== null ||
    found.session.transport !== transport ||
    Date.parse(found.session.expires_at) <= now.getTime() ||
    Date.parse(found.session.created_at) + SESSION_MAX_MS <= now.getTime() ||
    found.owner.disabled_at !== null
  )
    throw cabinetUnauthorized();
  let expiresAt = found.session.expires_at;
  if (now.getTime() - Date.parse(found.session.last_seen_at) >= TOUCH_EVERY_MS) {
    const idleEnd = now.getTime() + SESSION_IDLE_MS;
    const lastEnd = Date.parse(found.session.created_at) + SESSION_MAX_MS;
    expiresAt = new Date(Math.min(idleEnd, lastEnd)).toISOString();
    await writeTx(db, (trx) => touchSession(trx, tokenHash, now.toISOString(), expiresAt));
  }
  return {
    owner: found.owner,
    tokenHash,
    transport,
    expiresAt,
    csrfToken: transport === 'cookie' ? csrfTokenOf(token) : null,
  };
}

/** Refuses a cookie-borne change whose X-CSRF-Token is missing or not the session's. */
export function assertCsrf(session: CabinetSession, given: string | undefined): void {
  if (session.csrfToken === null) return;
  const expected = Buffer.from(session.csrfToken);
  const actual = Buffer.from(given ?? '');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
    throw new AppError(
      'csrf_token_invalid',
      `A change made with the session cookie must carry the session's ${CSRF_HEADER} header`,
    );
}

export async function endCabinetSession(db: Db, clock: Clock, session: CabinetSession): Promise<void> {
  await writeTx(db, (trx) => endSession(trx, session.tokenHash, clock.now().toISOString()));
}
