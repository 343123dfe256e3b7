/**
 * Operator token shape: `op_<16 hex>_<43 base64url>`, the API key's shape under its own prefix.
 * The first part is the public token id (`token_id`, shown by `operator token list` and recorded
 * as the actor of every console change), the second the secret (32 random bytes), of which only
 * an argon2id hash is kept.
 */
import { randomBytes } from 'node:crypto';

const TOKEN_SHAPE = /^op_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const BEARER = /^Bearer +(\S+) *$/i;

export interface ParsedToken {
  tokenId: string;
  secret: string;
}

export function parseOperatorToken(text: string | undefined): ParsedToken | null {
  if (typeof text !== 'string') return null;
  const m = TOKEN_SHAPE.exec(text);
  return m ? { tokenId: m[1] as string, secret: m[2] as string } : null;
}

/** The token of an `Authorization: Bearer <token>` header; null for any other header. */
export function bearerToken(header: string | undefined): ParsedToken | null {
  const m = typeof header === 'string' ? BEARER.exec(header) : null;
  return m ? parseOperatorToken(m[1]) : null;
}

export function generateOperatorToken(): ParsedToken & { token: string } {
  const tokenId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { tokenId, secret, token: `op_${tokenId}_${secret}` };
}

export function isTokenId(text: string): boolean {
  return /^[0-9a-f]{16}$/.test(text);
}
