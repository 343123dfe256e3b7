/**
 * One HTTP POST to the node, the whole answer read into one buffer, with undici's dispatcher
 * instead of fetch or node:http: a range of 100 mainnet blocks is ~35 MB, and fetch's web streams
 * cost twice the CPU of reading the socket into a buffer sized from Content-Length (issue 8);
 * node:http copies every body chunk once more into a new Buffer and pushes it through a stream,
 * where undici hands over views of the socket's reads (issue 12: the watcher's event loop spent
 * ~10 % in node:http's socketOnData; docs/decisions.md, release 3, eleventh round). The answer
 * moves to the parse worker without a copy. Compressed answers are accepted (a gateway such as
 * TronGrid may compress; a range is then a few MB on the wire instead of 35) and decompressed on
 * libuv's thread pool, never past the size limit.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Agent, type Dispatcher } from 'undici';
import { answerMemory } from './answer-memory.js';

/** No answer of the java-tron API we call comes near this; a node that sends more is refused. */
export const MAX_ANSWER_BYTES = 512 * 1024 * 1024;
/** Up to this, an answer's buffer is allocated once from its Content-Length (a range is ~35 MB). */
const PREALLOCATE_MAX = 64 * 1024 * 1024;

/**
 * Keep-alive connections, 32 per node at most. Its own timeouts are off: one timer covers the
 * whole exchange (a node that trickles a byte a second must not keep an answer open forever).
 */
const agent = new Agent({ connections: 32, headersTimeout: 0, bodyTimeout: 0 });

export class AnswerTimeout extends Error {}

export interface RawAnswer {
  status: number;
  /**
   * The body: a view of its exact length over a buffer it alone holds (answer-memory.ts; it may be
   * longer than the view). Give the buffer back with answerMemory.give once done, or let it go.
   */
  bytes: Uint8Array;
}

/** POSTs `body`; rejects with AnswerTimeout after `timeoutMs`, with the connection's error otherwise. */
export function postForAnswer(url: string, headers: Record<string, string>, body: string, timeoutMs: number, maxBytes = MAX_ANSWER_BYTES): Promise<RawAnswer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch (e) {
    return Promise.reject(e);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new Error(`unsupported protocol ${target.protocol}`));
  const payload = Buffer.from(body);
  const sent: Record<string, string> = { ...headers, 'accept-encoding': 'gzip, deflate, br' };
  // A node URL with credentials (https://user:pass@node): the origin drops them, the header keeps them.
  if (target.username || target.password) sent.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
  return new Promise<{ status: number; bytes: Uint8Array; encoding: string | undefined }>((resolve, reject) => {
    const reader = new AnswerReader(maxBytes, timeoutMs, resolve, reject);
    agent.dispatch(
      {
        origin: target.origin,
        path: target.pathname + target.search,
        method: 'POST',
        headers: sent,
        body: payload,
      },
      reader,
    );
  }).then(async ({ status, bytes, encoding }) => ({ status, bytes: await decoded(bytes, encoding, maxBytes) }));
}

/**
 * Reads one answer as undici's parser hands over its body (views of the socket's reads, copied
 * once into the answer's buffer): into one buffer of Content-Length when given, else the chunks
 * joined. Every way it can end settles the promise once; a failure drops the connection, so a
 * half-read answer never leaves its socket in the pool.
 */
class AnswerReader implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private settled = false;
  private started = false;
  private readonly timer: NodeJS.Timeout;
  private status = 0;
  private encoding: string | undefined;
  private declared: number | null = null;
  private sized: Uint8Array | null = null;
  private readonly chunks: Buffer[] = [];
  private length = 0;

  constructor(
    private readonly maxBytes: number,
    timeoutMs: number,
    private readonly resolve: (a: { status: number; bytes: Uint8Array; encoding: string | undefined }) => void,
    private readonly reject: (e: Error) => void,
  ) {
    this.timer = setTimeout(() => this.fail(new AnswerTimeout(`no whole answer within ${timeoutMs} ms`)), timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) controller.abort(new Error('answer no longer awaited'));
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[]>): void {
    // An informational answer (103 Early Hints): the real one follows. (undici drops a connection
    // that answers 100 Continue to a request that did not ask for it.)
    if (status < 200) return;
    this.started = true;
    this.status = status;
    const encoding = headers['content-encoding'];
    this.encoding = Array.isArray(encoding) ? encoding.join(',') : encoding;
    const header = headers['content-length'];
    if (header === undefined) return;
    const declared = Array.isArray(header) ? NaN : Number(header);
    if (!(Number.isSafeInteger(declared) && declared >= 0) || header === '') return this.fail(new Error(`answer with an invalid Content-Length: ${String(header)}`));
    if (declared > this.maxBytes) return this.fail(new Error(`answer of ${declared} bytes is over the ${this.maxBytes}-byte limit`));
    this.declared = declared;
    // Memory is taken as bytes arrive beyond PREALLOCATE_MAX, not on the word of a header.
    if (declared <= PREALLOCATE_MAX) this.sized = answerMemory.take(declared);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.length + chunk.length > (this.declared ?? this.maxBytes)) {
      return this.fail(new Error(this.declared !== null ? 'answer longer than its Content-Length' : `answer over the ${this.maxBytes}-byte limit`));
    }
    if (this.sized) this.sized.set(chunk, this.length);
    else this.chunks.push(chunk);
    this.length += chunk.length;
  }

  onResponseEnd(): void {
    if (this.settled) return;
    if (this.declared !== null && this.length !== this.declared) return this.fail(new Error(`answer cut short: ${this.length} of ${this.declared} bytes`));
    let bytes: Uint8Array;
    try {
      bytes = this.sized ?? joined(this.chunks, this.length);
    } catch (e) {
      return this.fail(e as Error); // no memory for a large unsized answer: a failure, never a hang
    }
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve({ status: this.status, bytes, encoding: this.encoding });
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(new Error(`${this.started ? 'answer cut short' : 'no answer'}: ${error.message}`, { cause: error }));
  }

  private fail(e: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.controller?.abort(e); // closes the connection; a no-op once undici itself failed it
    this.reject(e);
  }
}

/**
 * The chunks in one buffer of their own: a copy, as each chunk is a view of a socket read that
 * may hold other bytes, and the body must be movable to the parse worker alone.
 */
function joined(chunks: Buffer[], length: number): Uint8Array {
  const whole = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    whole.set(c, at);
    at += c.length;
  }
  return whole;
}

const inflaters: Record<string, (b: Buffer, o: zlib.ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress) as (b: Buffer, o: zlib.ZlibOptions) => Promise<Buffer>,
};

/** The answer without its Content-Encoding (none, gzip, deflate or br). */
async function decoded(bytes: Uint8Array, encoding: string | undefined, maxBytes: number): Promise<Uint8Array> {
  const name = (encoding ?? 'identity').trim().toLowerCase();
  if (name === 'identity' || name === '') return bytes;
  const inflate = inflaters[name];
  if (!inflate) throw new Error(`answer in an unknown encoding: ${name}`);
  let out: Buffer;
  try {
    out = await inflate(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), { maxOutputLength: maxBytes });
  } catch (e) {
    throw new Error(`compressed answer unreadable or over the ${maxBytes}-byte limit: ${(e as Error).message}`);
  }
  answerMemory.give(bytes.buffer as ArrayBuffer);
  return new Uint8Array(out.buffer.slice(out.byteOffset, out.byteOffset + out.length));
}
