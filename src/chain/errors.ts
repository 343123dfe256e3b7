/**
 * Typed failures of a TRON node. Workers decide from the class and `transient` whether to back off
 * and retry later (never lose or double-count) or to give up on a transaction.
 */

/** The node answered with an error (HTTP status, `{"Error": …}`, or a body we cannot read). */
export class TronNodeError extends Error {
  readonly transient: boolean;
  readonly status: number | undefined;
  readonly path: string;
  constructor(message: string, opts: { path: string; transient: boolean; status?: number; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'TronNodeError';
    this.path = opts.path;
    this.transient = opts.transient;
    this.status = opts.status;
  }
}

/** No answer within the timeout (after the retries). Always transient. */
export class TronTimeoutError extends TronNodeError {
  readonly timeoutMs: number;
  constructor(path: string, timeoutMs: number) {
    super(`TRON node did not answer ${path} within ${timeoutMs} ms`, { path, transient: true });
    this.name = 'TronTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** The node could not be reached at all (connection refused, reset, DNS). Always transient. */
export class TronNetworkError extends TronNodeError {
  constructor(path: string, cause: unknown) {
    super(`TRON node unreachable for ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      path,
      transient: true,
      cause,
    });
    this.name = 'TronNetworkError';
  }
}

/** Broadcast refusal codes of java-tron's `Return.response_code`. */
export type BroadcastCode =
  | 'SIGERROR'
  | 'CONTRACT_VALIDATE_ERROR'
  | 'CONTRACT_EXE_ERROR'
  | 'BANDWITH_ERROR'
  | 'DUP_TRANSACTION_ERROR'
  | 'TAPOS_ERROR'
  | 'TOO_BIG_TRANSACTION_ERROR'
  | 'TRANSACTION_EXPIRATION_ERROR'
  | 'SERVER_BUSY'
  | 'NO_CONNECTION'
  | 'NOT_ENOUGH_EFFECTIVE_CONNECTION'
  | 'BLOCK_UNSOLIDIFIED'
  | 'OTHER_ERROR';

/** Codes where sending the same signed bytes again later may succeed. */
export const RETRYABLE_BROADCAST_CODES: ReadonlySet<BroadcastCode> = new Set([
  'SERVER_BUSY',
  'NO_CONNECTION',
  'NOT_ENOUGH_EFFECTIVE_CONNECTION',
  'BLOCK_UNSOLIDIFIED',
]);

/** A broadcast the node refused, with java-tron's code. */
export class TronBroadcastError extends Error {
  readonly code: BroadcastCode;
  readonly txid: string;
  constructor(code: BroadcastCode, txid: string, message: string) {
    super(`broadcast of ${txid} refused: ${code}${message ? ` (${message})` : ''}`);
    this.name = 'TronBroadcastError';
    this.code = code;
    this.txid = txid;
  }
  get retryable(): boolean {
    return RETRYABLE_BROADCAST_CODES.has(this.code);
  }
}

export function isTransientTronError(e: unknown): boolean {
  return e instanceof TronNodeError ? e.transient : e instanceof TronBroadcastError ? e.retryable : false;
}
