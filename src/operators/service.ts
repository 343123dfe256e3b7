/**
 * Operator tokens of the console: issue (the token shown once), list, revoke. Managed from the CLI
 * only, never through the console itself, so a stolen token cannot mint another or outlive its
 * revocation. Hashed as API keys are (argon2id, the same parameters); every change is audited.
 * A token carries the API keys' terms (src/keys/terms.ts: an expiry, the client networks it may
 * be used from) and may be read-only: every GET of the console, nothing else.
 */
import argon2 from 'argon2';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError } from '../errors.js';
import { ARGON2_OPTIONS, type HashCost } from '../keys/service.js';
import { networksOf, parseKeyTerms, storedNetworks, termsStatus } from '../keys/terms.js';
import { generateOperatorToken, isTokenId } from './format.js';
import { findToken, insertToken, listTokens, markRevoked, type OperatorTokenRow } from './store.js';

export const TOKEN_NAME_MAX = 100;

export interface OperatorTokenView {
  token_id: string;
  name: string;
  /** expired: past expires_at (refused like a revoked token); revoked wins over expired. */
  status: 'active' | 'expired' | 'revoked';
  /** true: every GET of the console, and 403 operator_token_read_only for anything else. */
  read_only: boolean;
  /** From this moment the token is refused; null: it does not expire. */
  expires_at: string | null;
  /** CIDRs the console may be called from with it; null: any client address. */
  allowed_networks: string[] | null;
  created_at: string;
  created_by: string;
  revoked_at: string | null;
  revoked_by: string | null;
}

/** What `operator token issue` takes besides the name; absent: full access, no expiry, any address. */
export interface OperatorTokenTerms {
  readOnly?: boolean;
  /** Milliseconds from issue until the token is refused. */
  expiresInMs?: number | null;
  /** CIDRs (or bare addresses) the console may be called from. */
  allowedNetworks?: readonly string[] | null;
}

export interface IssuedOperatorToken extends OperatorTokenView {
  /** The whole token. Printed once; it cannot be recovered later. */
  token: string;
}

function tokenView(r: OperatorTokenRow, now: Date): OperatorTokenView {
  return {
    token_id: r.token_id,
    name: r.name,
    status: termsStatus(r, now),
    read_only: r.read_only === 1,
    expires_at: r.expires_at,
    allowed_networks: networksOf(r.allowed_networks),
    created_at: r.created_at,
    created_by: r.created_by,
    revoked_at: r.revoked_at,
    revoked_by: r.revoked_by,
  };
}

const notFound = (id: string) => new AppError('operator_token_not_found', `Operator token ${id} does not exist`);

/**
 * Issues a token with its terms (`invalid_argument` naming the flag for bad ones, before anything
 * is written). `cost` exists for tests only, as for API keys: the CLI always hashes with
 * ARGON2_OPTIONS.
 */
export async function issueOperatorToken(
  db: Db,
  clock: Clock,
  actor: string,
  name: string,
  cost?: HashCost,
  terms: OperatorTokenTerms = {},
): Promise<IssuedOperatorToken> {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > TOKEN_NAME_MAX)
    throw new AppError('invalid_argument', `--name must be 1 to ${TOKEN_NAME_MAX} characters`);
  const now = clock.now();
  const t = parseKeyTerms({ expiresInMs: terms.expiresInMs, allowedNetworks: terms.allowedNetworks }, now);
  const readOnly = terms.readOnly === true;
  const token = generateOperatorToken();
  // Hash before the transaction: no slow work while holding the write lock.
  const secretHash = await argon2.hash(token.secret, { ...ARGON2_OPTIONS, ...cost });
  const row: OperatorTokenRow = {
    token_id: token.tokenId,
    name: trimmed,
    secret_hash: secretHash,
    created_at: now.toISOString(),
    created_by: actor,
    revoked_at: null,
    revoked_by: null,
    read_only: readOnly ? 1 : 0,
    expires_at: t.expires_at,
    allowed_networks: storedNetworks(t.allowed_networks),
  };
  await writeTx(db, async (trx) => {
    await insertToken(trx, row);
    await recordAudit(trx, clock, {
      actor,
      action: 'operator_token.issue',
      subjectType: 'operator_token',
      subjectId: row.token_id,
      details: {
        name: trimmed,
        read_only: readOnly,
        expires_at: t.expires_at,
        allowed_networks: t.allowed_networks,
      },
    });
  });
  return { ...tokenView(row, now), token: token.token };
}

/** Every token, oldest first; `clock` says which have expired. */
export async function listOperatorTokens(db: Db, clock: Clock): Promise<OperatorTokenView[]> {
  const now = clock.now();
  return (await listTokens(db)).map((r) => tokenView(r, now));
}

/** Revokes a token: the console refuses it from the next request on. Revoking twice changes nothing. */
export async function revokeOperatorToken(
  db: Db,
  clock: Clock,
  actor: string,
  given: string,
): Promise<OperatorTokenView> {
  const tokenId = given.toLowerCase();
  if (!isTokenId(tokenId)) throw notFound(given);
  return writeTx(db, async (trx) => {
    const row = await findToken(trx, tokenId);
    if (!row) throw notFound(tokenId);
    const now = clock.now();
    if (row.revoked_at) return tokenView(row, now);
    const at = now.toISOString();
    await markRevoked(trx, tokenId, at, actor);
    await recordAudit(trx, clock, {
      actor,
      action: 'operator_token.revoke',
      subjectType: 'operator_token',
      subjectId: tokenId,
      details: { name: row.name },
    });
    return tokenView({ ...row, revoked_at: at, revoked_by: actor }, now);
  });
}
