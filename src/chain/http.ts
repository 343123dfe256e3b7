/**
 * JSON over HTTP to a java-tron node (TronGrid, an own node, Nile or the devnet) with undici's
 * fetch: a per-attempt timeout for the whole exchange, the `TRON-PRO-API-KEY` header, and retries
 * with exponential backoff for transient failures only (network errors, timeouts, 429/5xx, busy
 * `{"Error"}` answers). Compressed answers are decompressed by fetch (a gateway such as TronGrid
 * may compress; a range is then a few MB on the wire instead of 35).
 */
import { Agent, fetch } from 'undici';
import { TronNetworkError, TronNodeError, TronTimeoutError } from './errors.js';
import { ParserClosed, UnparsableAnswer } from './parse-worker.js';

/** No answer of the java-tron API we call comes near this; a node that sends more is refused. */
export const MAX_ANSWER_BYTES = 512 * 1024 * 1024;

/** Keep-alive connections, 32 per node at most; the attempt's own timeout covers the whole answer. */
const agent = new Agent({ connections: 32, headersTimeout: 0, bodyTimeout: 0 });

export interface NodeHttpOptions {
  /** Base URL, e.g. https://api.trongrid.io or http://127.0.0.1:8090. */
  fullHost: string;
  /** Base URL for `/walletsolidity/*` when a node serves it on another port; defaults to fullHost. */
  solidityHost?: string;
  apiKey?: string | null;
  /** Per-attempt timeout. */
  timeoutMs?: number;
  /** Extra attempts after the first for transient failures. */
  retries?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Injected for tests; defaults to setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** The largest answer read (default MAX_ANSWER_BYTES). */
  maxAnswerBytes?: number;
}

/** `{"Error": …}` texts that mean "try again later" rather than "this request is wrong". */
const TRANSIENT_ERROR_TEXT =
  /busy|timeout|timed out|too many|try again|unavailable|overload|rate limit|connection|not ready|syncing/i;

export class NodeHttp {
  readonly fullHost: string;
  readonly solidityHost: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxAnswerBytes: number;

  constructor(opts: NodeHttpOptions) {
    this.fullHost = opts.fullHost.replace(/\/+$/, '');
    this.solidityHost = (opts.solidityHost ?? opts.fullHost).replace(/\/+$/, '');
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (opts.apiKey) this.headers['TRON-PRO-API-KEY'] = opts.apiKey;
    this.maxAnswerBytes = opts.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retries = opts.retries ?? 4;
    this.backoffMs = opts.backoffMs ?? 250;
    this.maxBackoffMs = opts.maxBackoffMs ?? 8_000;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /**
   * POSTs `body` to `path` and returns the parsed JSON. `isTransientAnswer` lets a caller treat a
   * well-formed answer as transient (e.g. a broadcast answering SERVER_BUSY) so it is retried too;
   * when retries run out that answer is returned, not thrown.
   */
  async post<T = unknown>(path: string, body: unknown, opts: PostOptions<T> = {}): Promise<T> {
    let lastError: TronNodeError | undefined;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await this.sleep(this.backoff(attempt));
      try {
        const answer = await this.once<T>(path, body, opts.parse);
        if (opts.isTransientAnswer?.(answer) && attempt < this.retries) continue;
        return answer;
      } catch (e) {
        if (!(e instanceof TronNodeError) || !e.transient) throw e;
        lastError = e;
      }
    }
    throw lastError ?? new TronNodeError(`no answer for ${path}`, { path, transient: true });
  }

  private backoff(attempt: number): number {
    const base = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (attempt - 1));
    // Jitter spreads retries of many workers hitting the same busy node.
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  private async once<T>(path: string, body: unknown, parse?: (body: Uint8Array) => Promise<unknown>): Promise<T> {
    const host = path.startsWith('/walletsolidity/') ? this.solidityHost : this.fullHost;
    let status: number;
    let bytes: Uint8Array;
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      ({ status, bytes } = await postForAnswer(
        host + path,
        this.headers,
        JSON.stringify(body ?? {}),
        signal,
        this.maxAnswerBytes,
      ));
    } catch (e) {
      if (signal.aborted) throw new TronTimeoutError(path, this.timeoutMs);
      throw new TronNetworkError(path, e);
    }
    if (status >= 400) {
      const preview = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 200)).toString('utf8');
      throw new TronNodeError(`TRON node answered HTTP ${status} for ${path}: ${preview}`, {
        path,
        status,
        transient: status === 429 || status >= 500,
      });
    }
    const json = parse ? await this.parsedElsewhere(path, status, bytes, parse) : parseHere(path, status, bytes);
    if (
      json &&
      typeof json === 'object' &&
      !Array.isArray(json) &&
      typeof (json as { Error?: unknown }).Error === 'string'
    ) {
      const message = (json as { Error: string }).Error;
      throw new TronNodeError(`TRON node error for ${path}: ${message}`, {
        path,
        status,
        transient: TRANSIENT_ERROR_TEXT.test(message),
      });
    }
    return json as T;
  }

  private async parsedElsewhere(
    path: string,
    status: number,
    bytes: Uint8Array,
    parse: (body: Uint8Array) => Promise<unknown>,
  ): Promise<unknown> {
    try {
      return await parse(bytes);
    } catch (e) {
      if (e instanceof UnparsableAnswer) {
        throw new TronNodeError(`TRON node answered ${path} with non-JSON: ${e.preview}`, {
          path,
          status,
          transient: false,
          cause: e,
        });
      }
      if (e instanceof ParserClosed)
        throw new TronNodeError(`answer of ${path} dropped: ${e.message}`, {
          path,
          status,
          transient: false,
          cause: e,
        });
      // The parser itself failed (a worker that died): not the node's fault, so ask again.
      throw new TronNodeError(`answer of ${path} could not be parsed: ${(e as Error).message}`, {
        path,
        status,
        transient: true,
        cause: e,
      });
    }
  }
}

export interface PostOptions<T> {
  /** A well-formed answer to treat as transient (retried; returned once retries run out). */
  isTransientAnswer?: (answer: T) => boolean;
  /** Parses (and may prune) the body elsewhere, e.g. on the parse worker; default JSON.parse here. */
  parse?: (body: Uint8Array) => Promise<unknown>;
}

function parseHere(path: string, status: number, bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  try {
    return text.trim() === '' ? {} : JSON.parse(text);
  } catch (e) {
    throw new TronNodeError(`TRON node answered ${path} with non-JSON: ${text.slice(0, 200)}`, {
      path,
      status,
      transient: false,
      cause: e,
    });
  }
}

/**
 * POSTs `body` and reads the whole answer into one buffer of its own (it may move to the parse
 * worker). A node URL's credentials (https://user:pass@node) go as Basic authorization: fetch
 * refuses a URL that holds them. An answer over `maxBytes`, declared or streamed (decompressed
 * bytes count), is refused.
 */
async function postForAnswer(
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  maxBytes: number,
): Promise<{ status: number; bytes: Uint8Array }> {
  const target = new URL(url);
  const sent = { ...headers };
  if (target.username || target.password) {
    sent.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
    target.username = '';
    target.password = '';
  }
  const res = await fetch(target, { method: 'POST', headers: sent, body, signal, dispatcher: agent });
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new Error(`answer of ${declared} bytes is over the ${maxBytes}-byte limit`);
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of res.body ?? []) {
    length += chunk.length;
    if (length > maxBytes) throw new Error(`answer over the ${maxBytes}-byte limit`);
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { status: res.status, bytes };
}
