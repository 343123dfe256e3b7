/**
 * Operator tokens of the console: issue (the token shown once), list, revoke. Managed from the CLI
 * only, never through the console itself, so a stolen token cannot mint another or outlive its
 * revocation. Hashed as API keys are (argon2id, the same parameters); every change is audited.
 */
import argon2 from 'argon2';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError } from '../errors.js';
import { ARGON2_OPTIONS, type HashCost } from '../keys/service.js';
import { generateOperatorToken, isTokenId } from './format.js';
import { findToken, insertToken, listTokens, markRevoked, type OperatorTokenRow } from './store.js';

export const TOKEN_NAME_MAX = 100;

export interface OperatorTokenView {
  token_id: string;
  name: string;
  status: 'active' | 'revoked';
  created_at: string;
  created_by: string;
  revoked_at: string | null;
  revoked_by: string | null;
}

export interface IssuedOperatorToken extends OperatorTokenView {
  /** The whole token. Printed once; it cannot be recovered later. */
  token: string;
}

function tokenView(r: OperatorTokenRow): OperatorTokenView {
  return {
    token_id: r.token_id,
    name: r.name,
    status: r.revoked_at ? 'revoked' : 'active',
    created_at: r.created_at,
    created_by: r.created_by,
    revoked_at: r.revoked_at,
    revoked_by: r.revoked_by,
  };
}

const notFound = (id: string) => new AppError('operator_token_not_found', `Operator token ${id} does not exist`);

/** `cost` exists for tests only, as for API keys: the CLI always hashes with ARGON2_OPTIONS. */
export async function issueOperatorToken(
  db: Db,
  clock: Clock,
  actor: string,
  name: string,
  cost?: HashCost,
): Promise<IssuedOperatorToken> {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > TOKEN_NAME_MAX)
    throw new AppError('invalid_argument', `--name must be 1 to ${TOKEN_NAME_MAX} characters`);
  const token = generateOperatorToken();
  // Hash before the transaction: no slow work while holding the write lock.
  const secretHash = await argon2.hash(token.secret, { ...ARGON2_OPTIONS, ...cost });
  const row: OperatorTokenRow = {
    token_id: token.tokenId,
    name: trimmed,
    secret_hash: secretHash,
    created_at: clock.now().toISOString(),
    created_by: actor,
    revoked_at: null,
    revoked_by: null,
  };
  await writeTx(db, async (trx) => {
    await insertToken(trx, row);
    await recordAudit(trx, clock, {
      actor,
      action: 'operator_token.issue',
      subjectType: 'operator_token',
      subjectId: row.token_id,
      details: { name: trimmed },
    });
  });
  return { ...tokenView(row), token: token.token };
}

export async function listOperatorTokens(db: Db): Promise<OperatorTokenView[]> {
  return (await listTokens(db)).map(tokenView);
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
    if (row.revoked_at) return tokenView(row);
    const at = clock.now().toISOString();
    await markRevoked(trx, tokenId, at, actor);
    await recordAudit(trx, clock, {
      actor,
      action: 'operator_token.revoke',
      subjectType: 'operator_token',
      subjectId: tokenId,
      details: { name: row.name },
    });
    return tokenView({ ...row, revoked_at: at, revoked_by: actor });
  });
}
