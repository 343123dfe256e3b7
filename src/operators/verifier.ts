/**
 * Authentication of the operator console: `Authorization: Bearer op_<token_id>_<secret>`. The
 * token row is read on every request, so a revoked token is refused on the next one, whichever
 * process revoked it. The secret is checked by the API keys' machinery (src/keys/verifier.ts) on an
 * instance of its own: argon2id once per token, then the digest trusted for at most 60 s, and
 * bounded hashing under a flood of wrong tokens (per-client budgets, a process-wide rate, a short
 * queue). A missing, malformed, unknown, revoked or wrong token is one 401 whatever the cause; so
 * is an expired one, or one used from outside its allowed networks (the API keys' terms,
 * src/keys/terms.ts), decided before any hashing. A read-only token is refused any method but GET
 * (and HEAD) with 403 operator_token_read_only, in the same onRequest step: before the body is read
 * or validated, so nothing is written.
 */
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { AppError, isAppError } from '../errors.js';
import { usableUnderTerms } from '../keys/terms.js';
import { ApiKeyVerifier, type VerifierOptions } from '../keys/verifier.js';
import { bearerToken } from './format.js';
import { findToken } from './store.js';

export interface Operator {
  tokenId: string;
  name: string;
  /** Every GET of the console, nothing else. */
  readOnly: boolean;
}

/** The methods a read-only token may call: reads only. */
const READS = new Set(['GET', 'HEAD']);

export const isRead = (method: string): boolean => READS.has(method);

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
    private readonly clock: Clock,
    opts: VerifierOptions = {},
  ) {
    this.secrets = new ApiKeyVerifier(db, clock, opts);
  }

  /** argon2 verifications done (tests). */
  get hashCount(): number {
    return this.secrets.hashCount;
  }

  /**
   * The operator of a valid token allowed `method`; 401 unauthorized for a token that is not valid
   * here and now, 403 operator_token_read_only for a read-only token and anything but a read.
   * `clientIp` is the client's rate-limit bucket (an IPv6 client's /64), whose hashing budget is
   * spent; `clientAddress` the client's own address, held against the token's allowed networks.
   */
  async authenticate(
    header: string | undefined,
    method: string,
    clientIp: string,
    clientAddress: string | undefined,
  ): Promise<Operator> {
    const parsed = bearerToken(header);
    if (!parsed) throw unauthorized();
    const row = await findToken(this.db, parsed.tokenId);
    if (!row || !usableUnderTerms(row, this.clock.now(), clientAddress)) throw unauthorized();
    try {
      await this.secrets.checkSecret(parsed.tokenId, parsed.secret, row.secret_hash, clientIp);
    } catch (e) {
      throw reworded(e);
    }
    // Only once the token is known right: a wrong one never learns that the token is read-only.
    if (row.read_only === 1 && !isRead(method))
      throw new AppError(
        'operator_token_read_only',
        'This operator token is read-only: it may call GET routes only; nothing was changed',
      );
    return { tokenId: row.token_id, name: row.name, readOnly: row.read_only === 1 };
  }
}
