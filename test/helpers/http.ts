/** A small fetch wrapper for end-to-end tests over real HTTP on loopback. */
import net from 'node:net';

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface ApiRequest {
  method?: string;
  key?: string | null;
  body?: unknown;
  /** Sent as is (no JSON encoding, no content-type added). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export async function api(baseUrl: string, path: string, req: ApiRequest = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  if (req.key) headers['x-api-key'] = req.key;
  let body: string | Buffer | undefined;
  if (req.rawBody !== undefined) body = req.rawBody;
  else if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + path, {
    method: req.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** The spec's error body: exactly {error: {code, message, details?}}. */
export function isErrorBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== 'error') return false;
  const e = (body as { error: Record<string, unknown> }).error;
  if (typeof e !== 'object' || e === null) return false;
  if (typeof e.code !== 'string' || typeof e.message !== 'string') return false;
  const allowed = new Set(['code', 'message', 'details']);
  if (!Object.keys(e).every((k) => allowed.has(k))) return false;
  if (e.details !== undefined) {
    if (e.code !== 'validation_failed' || !Array.isArray(e.details)) return false;
    return e.details.every(
      (d: unknown) =>
        typeof (d as { path?: unknown }).path === 'string' && typeof (d as { message?: unknown }).message === 'string',
    );
  }
  return e.code !== 'validation_failed';
}

/** Writes `text` as is on a new connection to `baseUrl` and returns everything read until it closes. */
export function rawRequest(baseUrl: string, text: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const u = new URL(baseUrl);
    const socket = net.connect(Number(u.port), u.hostname, () => socket.write(text));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

/** A user's permanent deposit address (POST /v1/addresses); throws unless it is answered 2xx. */
export async function permanentAddress(baseUrl: string, key: string, user: string): Promise<string> {
  const r = await api(baseUrl, '/v1/addresses', { key, body: { external_user_id: user, network: 'tron' } });
  if (r.status >= 300) throw new Error(`POST /v1/addresses answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.address as string;
}
