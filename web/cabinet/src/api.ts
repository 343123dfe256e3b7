// The cabinet API as the page uses it, typed by the paths of the served OpenAPI document
// (web/types/cabinet-api.d.ts): the session is an HttpOnly cookie the page never sees; every change
// carries the session's CSRF token in X-CSRF-Token.
import type { paths } from '../../types/cabinet-api';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : null;
type Success<Rs> = { [C in keyof Rs]: C extends 200 | 201 ? JsonOf<Rs[C]> : C extends 204 ? null : never }[keyof Rs];
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The paths that answer `method`. */
export type PathOf<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends { responses: object } ? P : never;
}[keyof paths];
/** What a successful `method path` answers. */
export type Answer<M extends Method, P extends PathOf<M>> =
  Op<P, M> extends { responses: infer Rs } ? Success<Rs> : never;
/** The query a `method path` takes. */
export type QueryOf<M extends Method, P extends PathOf<M>> =
  Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The JSON body a `method path` takes. */
export type BodyOf<M extends Method, P extends PathOf<M>> =
  Op<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

export type Params = Record<string, string>;
type Query = Record<string, string | number | boolean | undefined | null>;

let csrfToken: string | null = null;
let onSignedOut: () => void = () => {};

export interface ErrorDetail {
  path: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  retryAfter: string | null = null;
  constructor(status: number, body: unknown) {
    const error = (body as { error?: { message?: string; code?: string; details?: ErrorDetail[] } } | null)?.error;
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code ?? 'http_error';
    this.details = error?.details ?? [];
  }
}

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when a request finds the session ended (401): the page shows the sign-in again. */
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

/** A path of the document with its `{name}` parts filled in. */
export function fill(path: string, params: Params = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** `path` with the query parameters that have a value. */
export function withQuery(path: string, query: Query = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const text = q.toString();
  return text ? `${path}?${text}` : path;
}

interface Options {
  params?: Params;
  /** A 401 is the caller's to explain (sign-in, setup), not a sign of an ended session. */
  quiet?: boolean;
}

/** One request to /cabinet/v1; resolves to the typed answer, rejects with an ApiError. */
export async function call<M extends Method, P extends PathOf<M>>(
  method: M,
  path: P,
  opts: Options & { query?: QueryOf<M, P>; body?: BodyOf<M, P> } = {},
): Promise<Answer<M, P>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'get' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const url = withQuery(fill(path, opts.params), (opts.query ?? {}) as Query);
  const res = await fetch(url, {
    method: method.toUpperCase(),
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (res.status === 204) return null as Answer<M, P>;
  const data: unknown = await res.json().catch(() => null);
  if (res.ok) return data as Answer<M, P>;
  const error = new ApiError(res.status, data);
  error.retryAfter = res.headers.get('retry-after');
  // A wrong current password is a refusal of this change; the session itself is still good.
  if (res.status === 401 && !opts.quiet && error.code !== 'current_password_incorrect') onSignedOut();
  throw error;
}

export function get<P extends PathOf<'get'>>(
  path: P,
  params?: Params,
  query?: QueryOf<'get', P>,
): Promise<Answer<'get', P>> {
  return call('get', path, { params, query });
}

/**
 * What the owner is told for a refusal the page can meet: words about the shop, never the API's
 * code (a code the table does not name gets the server's message, which is written for people).
 */
const OWNER_WORDS: Record<string, string> = {
  merchant_disabled: 'The merchant is switched off, so this is refused; switch it on first.',
  merchant_not_approved: 'The operator has not approved this merchant yet.',
  role_not_allowed: 'You can view this merchant but not change it; ask one of its owners.',
  csrf_token_invalid: 'The page is out of date; reload it and try again.',
  current_password_incorrect: 'The current password is not right.',
  asset_disabled_by_merchant: 'This asset is switched off in your settings.',
  asset_payments_disabled: 'The operator has stopped payments in this asset for now.',
  asset_not_supported: 'This asset is not offered by the gateway.',
  webhook_url_not_allowed:
    'That webhook address is refused: use a public https address (private ones are the operator’s to allow).',
  network_fee_payer_not_supported: 'The customer can no longer pay the network fee; the merchant pays it.',
  invalid_state: 'That cannot be done in the current state; reload the page to see it.',
  refund_exceeds_received:
    'That is more than this invoice brought in that token, less its earlier refunds; refund a smaller amount.',
  insufficient_balance: 'The balance available in that token cannot cover the refund and its payout fee.',
  refund_not_found: 'That refund does not exist (any more); reload the page.',
  refund_not_claimable: 'That refund can no longer be claimed.',
  invoice_not_found: 'That invoice does not exist for this merchant.',
  exception_not_found: 'That exception does not exist for this merchant.',
  payout_not_found: 'That payout does not exist for this merchant.',
  owner_not_found: 'That person does not hold this merchant (any more); reload the page.',
  merchant_not_found: 'This account does not hold that merchant (any more); reload the page.',
  invalid_period: 'From must be before To.',
  second_factor_locked: 'Too many wrong codes: the second factor is locked for a while.',
  service_unavailable: 'The cabinet is busy; wait a moment and try again.',
  internal_error: 'Something went wrong on the server; try again, and tell the operator if it persists.',
};

const CODE_LIKE = /\b[a-z]+_[a-z_]+\b/;
const REFUSED = 'The cabinet refused this; reload the page and try again, and tell the operator if it persists.';

/** The words a person needs for a refusal. */
export function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The cabinet could not be reached; check the connection and retry.';
  if (error.code === 'rate_limited') return `Too many attempts; retry in ${error.retryAfter ?? 'a few'} seconds.`;
  if (error.code === 'validation_failed' && error.details.length > 0)
    return error.details.map((d) => `${d.path.replace(/^(body|query|params)\./, '')} ${d.message}`).join('; ');
  // A code the table does not name: the server's message, unless it carries an API code itself.
  return OWNER_WORDS[error.code] ?? (CODE_LIKE.test(error.message) ? REFUSED : error.message);
}
