// The cabinet API as the page uses it: the session is an HttpOnly cookie the page never sees;
// every change carries the session's CSRF token in X-CSRF-Token.

let csrfToken = null;
let onSignedOut = () => {};

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code ?? 'http_error';
    this.details = body?.error?.details ?? [];
    this.retryAfter = null;
  }
}

export function setCsrfToken(token) {
  csrfToken = token;
}

/** Called when a request finds the session ended (401): the page shows the sign-in again. */
export function whenSignedOut(fn) {
  onSignedOut = fn;
}

/**
 * One request to /cabinet/v1. `quiet`: a 401 is the caller's to explain (sign-in, setup), not a
 * sign of an ended session.
 */
export async function call(method, path, body, { quiet = false } = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`/cabinet/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (res.status === 204) return null;
  const data = await res.json().catch(() => null);
  if (res.ok) return data;
  const error = new ApiError(res.status, data);
  error.retryAfter = res.headers.get('retry-after');
  if (res.status === 401 && !quiet) onSignedOut();
  throw error;
}

export const get = (path) => call('GET', path);

/** `path` with the query parameters that have a value. */
export function withQuery(path, query) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const text = q.toString();
  return text ? `${path}?${text}` : path;
}

/** The words a person needs for a refusal. */
export function explain(error) {
  if (!(error instanceof ApiError)) return 'The cabinet could not be reached; check the connection and retry.';
  if (error.code === 'rate_limited') return `Too many attempts; retry in ${error.retryAfter ?? 'a few'} seconds.`;
  if (error.code === 'validation_failed' && error.details.length > 0)
    return error.details.map((d) => `${d.path.replace(/^(body|query|params)\./, '')} ${d.message}`).join('; ');
  return error.message;
}
