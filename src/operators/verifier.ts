/**
 * Authentication of the operator console: `Authorization: Bearer op_<token_id>_<secret>`. The
 * token row is read on every request, so a revoked token is refused on the next one, whichever
 * process revoked it. The secret is checked by the API keys' machinery (src/keys/verifier.ts) on an
 * instance of its own: argon2id once per token, then the digest trusted for at most 60 s, and
 * bounded hashing under a flood of wrong tokens (per-client budgets, a process-wide rate, a short
 * queue). A missing, malformed, unknown, revoked or wrong token is one 401 whatever the cause.
 */
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { AppError, isAppError } from '../errors.js';
import { ApiKeyVerifier, type VerifierOptions } from '../keys/verifier.js';
import { bearerToken } from './format.js';
import { findToken } from './store.js';

export interface Operator {
  tokenId: string;
  name: string;
}

export const unauthorized = () => new AppError('unauthorized', 'Missing or invalid operator token');

/** The shared machinery words its refusals for API keys; the console's speak of tokens. */
function reworded(e: unknown): unknown {
  if (!isAppError(e)) return e;
  if (e.code === 'unauthorized') return unauthorized();
  const retry = e.headers?.['retry-after'];
  const headers = e.headers ? { headers: e.headers } : {};
  if (e.code === 'rate_limited')
    return new AppError(
      'rate_limited',
      `Too many operator tokens tried from this address; retry in ${retry} s`,
      headers,
    );
  if (e.code === 'service_unavailable')
    return new AppError(
      'service_unavailable',
      `Operator tokens cannot be verified right now; retry in ${retry} s`,
      headers,
    );
  return e;
}

export class OperatorTokenVerifier {
  private readonly secrets: ApiKeyVerifier;

  constructor(
    private readonly db: Db,
    clock: Clock,
    opts: VerifierOptions = {},
  ) {
    this.secrets = new ApiKeyVerifier(db, clock, opts);
  }

  /** argon2 verifications done (tests). */
  get hashCount(): number {
    return this.secrets.hashCount;
  }

  /** The operator of a valid token; 401 unauthorized otherwise. `clientIp` spends its hashing budget. */
  async authenticate(header: string | undefined, clientIp: string): Promise<Operator> {
    const parsed = bearerToken(header);
    if (!parsed) throw unauthorized();
    const row = await findToken(this.db, parsed.tokenId);
    if (!row || row.revoked_at !== null) throw unauthorized();
    try {
      await this.secrets.checkSecret(parsed.tokenId, parsed.secret, row.secret_hash, clientIp);
    } catch (e) {
      throw reworded(e);
    }
    return { tokenId: row.token_id, name: row.name };
  }
}
