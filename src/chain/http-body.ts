/**
 * One HTTP POST to the node, the whole answer read into one buffer, with node:http(s) and
 * keep-alive agents instead of fetch: a range of 100 mainnet blocks is ~35 MB, and fetch's web
 * streams cost twice the CPU of reading the socket into a buffer sized from Content-Length (issue
 * 8, measured in docs/decisions.md). The answer moves to the parse worker without a copy.
 * Compressed answers are accepted (a gateway such as TronGrid may compress; a range is then a few
 * MB on the wire instead of 35) and decompressed on libuv's thread pool, never past the size limit.
 */
import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { answerMemory } from './answer-memory.js';

/** No answer of the java-tron API we call comes near this; a node that sends more is refused. */
export const MAX_ANSWER_BYTES = 512 * 1024 * 1024;
/** Up to this, an answer's buffer is allocated once from its Content-Length (a range is ~35 MB). */
const PREALLOCATE_MAX = 64 * 1024 * 1024;

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 32 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 32 }),
};

export class AnswerTimeout extends Error {}

export interface RawAnswer {
  status: number;
  /**
   * The body: a view of its exact length over a buffer it alone holds (answer-memory.ts; it may be
   * longer than the view). Give the buffer back with answerMemory.give once done, or let it go.
   */
  bytes: Uint8Array;
}

/** POSTs `body`; rejects with AnswerTimeout after `timeoutMs`, with the socket's error otherwise. */
export function postForAnswer(url: string, headers: Record<string, string>, body: string, timeoutMs: number, maxBytes = MAX_ANSWER_BYTES): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const agent = agents[target.protocol as keyof typeof agents];
    if (!agent) return reject(new Error(`unsupported protocol ${target.protocol}`));
    const payload = Buffer.from(body);
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(target, { method: 'POST', agent, headers: { ...headers, 'accept-encoding': 'gzip, deflate, br', 'content-length': payload.length } }, (res) => {
      readAnswer(res, maxBytes)
        .then((bytes) => decoded(bytes, res.headers['content-encoding'], maxBytes))
        .then((bytes) => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, bytes });
        }, fail);
    });
    const timer = setTimeout(() => fail(new AnswerTimeout(`no whole answer within ${timeoutMs} ms`)), timeoutMs);
    function fail(e: Error): void {
      clearTimeout(timer);
      req.destroy(); // a half-read answer must not leave its socket in the pool
      reject(e);
    }
    req.on('error', fail);
    req.end(payload);
  });
}

/** The whole body: into one buffer of Content-Length when given, else the chunks joined. */
function readAnswer(res: http.IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const header = res.headers['content-length'];
    const declared = header === undefined ? null : Number(header);
    if (declared !== null && !(Number.isSafeInteger(declared) && declared >= 0)) return reject(new Error(`answer with an invalid Content-Length: ${header}`));
    if (declared !== null && declared > maxBytes) return reject(new Error(`answer of ${declared} bytes is over the ${maxBytes}-byte limit`));
    // Memory is taken as bytes arrive beyond PREALLOCATE_MAX, not on the word of a header.
    const sized = declared !== null && declared <= PREALLOCATE_MAX ? answerMemory.take(declared) : null;
    const chunks: Buffer[] = [];
    let length = 0;
    res.on('data', (chunk: Buffer) => {
      if (length + chunk.length > (declared ?? maxBytes)) {
        res.destroy();
        return reject(new Error(declared !== null ? 'answer longer than its Content-Length' : `answer over the ${maxBytes}-byte limit`));
      }
      if (sized) sized.set(chunk, length);
      else chunks.push(chunk);
      length += chunk.length;
    });
    res.on('end', () => {
      if (declared !== null && length !== declared) return reject(new Error(`answer cut short: ${length} of ${declared} bytes`));
      if (sized) return resolve(sized);
      // A copy: a small Buffer may share its memory with others (Node's pool), and the body must
      // be movable to the parse worker alone.
      const whole = Buffer.concat(chunks, length);
      resolve(new Uint8Array(whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.length)));
    });
    res.on('error', reject);
    // Closed before its end (a reset, a node that died mid-answer): a promise settles once.
    res.on('close', () => reject(new Error('answer cut short: the connection closed')));
  });
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
