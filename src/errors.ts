/**
 * The single table of error codes: every code of the merchant API spec with its HTTP status.
 * The API maps an AppError to `{error: {code, message, details?}}`; the CLI prints the same
 * shape with `--json` and exits non-zero. Codes are never renamed or removed (spec: Versioning).
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  bad_request: 400,
  unauthorized: 401,
  /** Cabinet: a password change whose current password is wrong; the session stays signed in. */
  current_password_incorrect: 401,
  merchant_disabled: 403,
  merchant_not_approved: 403,
  route_not_found: 404,
  invoice_not_found: 404,
  payout_not_found: 404,
  merchant_not_found: 404,
  api_key_not_found: 404,
  delivery_not_found: 404,
  /** No refund of this merchant (or, on the claim page, at all) has this id. */
  refund_not_found: 404,
  /** Cabinet: no live session of this account has this id (ended, expired, or another account's). */
  session_not_found: 404,
  asset_not_found: 404,
  /** CLI: no owner account has this email; cabinet: no account of this merchant has this id. */
  owner_not_found: 404,
  /** CLI and console: no transfer out of the hot wallet is recorded in this transaction. */
  hot_wallet_transfer_not_found: 404,
  /** Cabinet, console and CLI: no exception has this id (or, in the cabinet, not one of this merchant's). */
  exception_not_found: 404,
  /** Cabinet only: a change sent with the session cookie lacks the session's X-CSRF-Token. */
  csrf_token_invalid: 403,
  /** Console only: a read-only operator token may call GET routes only; nothing was changed. */
  operator_token_read_only: 403,
  /** Cabinet only: the account holds this merchant as a viewer and the operation is an owner's; nothing was changed. */
  role_not_allowed: 403,
  delivery_not_failed: 409,
  asset_flag_locked: 409,
  address_mode_mismatch: 409,
  order_id_conflict: 409,
  asset_already_selected: 409,
  invoice_expired: 409,
  reference_conflict: 409,
  /** CLI and console: the transfer named to settle a held payout has another asset, address or amount. */
  transfer_mismatch: 422,
  /** Claim page: the refund already has another address. */
  refund_address_already_set: 409,
  /** Claim page: the refund was canceled or is past its expires_at. */
  refund_not_claimable: 409,
  asset_required: 422,
  no_payable_assets: 422,
  asset_not_offered: 422,
  asset_not_supported: 422,
  asset_not_payable: 422,
  asset_payments_disabled: 422,
  asset_disabled_by_merchant: 422,
  asset_payouts_disabled: 422,
  amount_below_minimum: 422,
  network_fee_payer_not_supported: 422,
  service_fee_confirmation_required: 422,
  service_fee_valid_from_in_past: 422,
  payout_fee_confirmation_required: 422,
  payout_fee_valid_from_in_past: 422,
  invoice_fee_confirmation_required: 422,
  invoice_fee_valid_from_in_past: 422,
  redirect_url_not_allowed: 422,
  /** Cabinet: a well-formed period that holds no time (`from` not before `to`); details name the field. */
  invalid_period: 422,
  /** Cabinet: a webhook URL the owner may not set (not https, a private or loopback target); details name body.url. */
  webhook_url_not_allowed: 422,
  address_not_whitelisted: 422,
  /** Added in docs/changelog.md: amount plus payout fee exceeds the available balance. */
  insufficient_balance: 422,
  /** The refund exceeds what the invoice credited in that asset minus its live refunds. */
  refund_exceeds_received: 422,
  /** Claim page: the address is one of paygate's own (a deposit address, the hot wallet). */
  refund_address_not_allowed: 422,
  rate_limited: 429,
  /**
   * Cabinet sign-in only, and only after the right password: 10 wrong second-factor codes in a row
   * locked the account's second factor for 15 minutes (Retry-After says how long is left).
   */
  second_factor_locked: 429,
  internal_error: 500,
  service_unavailable: 503,
  payouts_halted: 503,
  addresses_exhausted: 503,
  network_fee_quote_unavailable: 503,
  /** CLI only: a flag or argument is malformed (the API uses validation_failed with details). */
  invalid_argument: 400,
  /** CLI only: `operator token revoke` of a token id that was never issued. */
  operator_token_not_found: 404,
  /**
   * CLI and start only: the configured database does not exist (no SQLite file, or no paygate
   * schema in it); only init, migrate, demo, devnet and restore create one.
   */
  database_not_found: 404,
  /**
   * CLI and cabinet: the operation does not fit the record's current state (e.g. approving a
   * rejected payout, confirming a TOTP enrolment that was never started).
   */
  invalid_state: 409,
  /**
   * CLI and start only: the node serves another chain than the one this database belongs to
   * (its genesis block differs from the one recorded, or from the configured network's).
   */
  wrong_network: 409,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetail[];
  /** Extra response headers (Retry-After on 429). */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: ErrorDetail[]; headers?: Record<string, string>; status?: number } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = opts.status ?? ERROR_STATUS[code];
    if (opts.details) this.details = opts.details;
    if (opts.headers) this.headers = opts.headers;
  }

  toBody(): { error: { code: ErrorCode; message: string; details?: ErrorDetail[] } } {
    const error: { code: ErrorCode; message: string; details?: ErrorDetail[] } = {
      code: this.code,
      message: this.message,
    };
    if (this.code === 'validation_failed' || this.details) error.details = this.details ?? [];
    return { error };
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** A validation failure on one field, in the spec's `details` shape. */
export function validationFailed(path: string, message: string): AppError {
  return new AppError('validation_failed', 'The request failed validation', { details: [{ path, message }] });
}
