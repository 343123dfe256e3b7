/**
 * One webhook POST: SSRF-checked target (ssrf.ts), connection to the checked address, a total
 * timeout, no redirects (node:http never follows them), and at most RESPONSE_CAP bytes of the
 * response read. Never throws: every failure is an outcome the dispatcher records.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { BlockedTargetError, resolveTarget, type ResolvedTarget } from './ssrf.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
/** Bytes of the response body read; the rest is discarded with the connection. */
export const RESPONSE_CAP = 4096;
/** Characters of the response kept in the delivery log. */
export const EXCERPT_CHARS = 200;

export interface PostOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Aborts the request (shutdown); the outcome is then `aborted`. */
  signal?: AbortSignal;
  /** DNS resolution (tests); default node:dns lookup. */
  resolve?: Parameters<typeof resolveTarget>[2];
}

export type PostResult =
  | { kind: 'response'; status: number; retryAfter: string | null; excerpt: string; durationMs: number }
  | { kind: 'error'; error: string; blocked: boolean; durationMs: number }
  | { kind: 'aborted'; durationMs: number };

/** Why a URL can never be a target for this merchant (checked when it is set and before every attempt). */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return allowPrivate ? 'must use https or http' : 'must use https (http only with --allow-private)';
  }
  if (url.username || url.password) return 'must not contain a user name or password';
  if (url.hash) return 'must not contain a fragment';
  if (raw.length > 2000) return 'must be at most 2000 characters';
  return null;
}

class Stopped extends Error {
  constructor(readonly reason: 'timeout' | 'aborted') {
    super(reason);
  }
}

/** `work`, or a Stopped rejection at the deadline or on abort (work itself runs on). */
function untilDeadline<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  if (signal?.aborted) return Promise.reject(new Stopped('aborted'));
  return new Promise<T>((resolve, reject) => {
    const stop = (reason: 'timeout' | 'aborted') => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(new Stopped(reason));
    };
    const onAbort = () => stop('aborted');
    const timer = setTimeout(() => stop('timeout'), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}

export async function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  opts: PostOptions,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const problem = urlProblem(rawUrl, opts.allowPrivate);
  if (problem) return { kind: 'error', error: `URL ${problem}`, blocked: true, durationMs: 0 };
  const url = new URL(rawUrl);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let target: ResolvedTarget;
  // Told when this attempt stops waiting, so that it leaves the queue for a DNS slot (ssrf.ts).
  const gaveUp = new AbortController();
  try {
    // The attempt's timeout and shutdown cover the lookup too: a resolver that never answers must
    // not hold the merchant's lane (and shutdown) for the system resolver's own timeout.
    target = await untilDeadline(
      resolveTarget(url.hostname, opts.allowPrivate, opts.resolve, gaveUp.signal),
      timeoutMs,
      opts.signal,
    );
  } catch (err) {
    if (err instanceof Stopped) {
      gaveUp.abort();
      return err.reason === 'aborted'
        ? { kind: 'aborted', durationMs: elapsed() }
        : { kind: 'error', error: `DNS: timed out after ${timeoutMs} ms`, blocked: false, durationMs: elapsed() };
    }
    const blocked = err instanceof BlockedTargetError;
    return {
      kind: 'error',
      error: blocked ? (err as Error).message : `DNS: ${(err as Error).message}`,
      blocked,
      durationMs: elapsed(),
    };
  }
  if (opts.signal?.aborted) return { kind: 'aborted', durationMs: elapsed() };
  const remainingMs = Math.max(1, timeoutMs - elapsed());
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      req.destroy();
      resolve(r);
    };
    // The connection goes to the address checked above, whatever DNS says now.
    const pinned: LookupFunction = (_host, o, cb) => {
      if ((o as { all?: boolean }).all) (cb as unknown as (e: null, a: ResolvedTarget[]) => void)(null, [target]);
      else cb(null, target.address, target.family);
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'paygate-webhooks/1' },
      lookup: pinned,
      agent: false,
    });
    const timer = setTimeout(
      () => finish({ kind: 'error', error: `timed out after ${timeoutMs} ms`, blocked: false, durationMs: elapsed() }),
      remainingMs,
    );
    const onAbort = () => finish({ kind: 'aborted', durationMs: elapsed() });
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) =>
      finish({
        kind: 'error',
        error: err.message || (err as NodeJS.ErrnoException).code || 'network error',
        blocked: false,
        durationMs: elapsed(),
      }),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const text = Buffer.concat(chunks).subarray(0, RESPONSE_CAP).toString('utf8');
        const retryAfter = res.headers['retry-after'];
        finish({
          kind: 'response',
          status: res.statusCode ?? 0,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
          excerpt: excerpt(text),
          durationMs: elapsed(),
        });
      };
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (size >= RESPONSE_CAP) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.end(body);
  });
}

/** The start of a response, printable, for the delivery log. */
export function excerpt(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean.length > EXCERPT_CHARS ? `${clean.slice(0, EXCERPT_CHARS)}…` : clean;
}
