/**
 * The kept-answer lane: a GET of an object whose answer is kept (db/view-cache.ts) is answered on
 * the raw request, before fastify builds its request and reply, when every check of DESIGN.md §10
 * passes. fastify's share of such a read was ~20 µs of ~60 (docs/decisions.md, "fifteenth round").
 *
 * The lane decides nothing. It answers only when the onRequest hook would admit the request and the
 * route would send the kept answer: the route exists, the client and the key have room in their
 * rate windows, the key is verified from memory, the merchant is enabled and owns the object. It
 * only looks until then (peek, no count). Anything else, a kept answer missing or a rate window
 * full included, goes to fastify untouched, which runs the whole check order and answers it (an
 * error, a database read). So the two paths cannot disagree on a refusal: the lane never refuses.
 * The answer is the kept one byte for byte, with the same headers (test/e2e/kept-lane.test.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ViewCache } from '../db/view-cache.js';
import { keyIdOf } from '../keys/format.js';
import type { ApiKeyVerifier } from '../keys/verifier.js';
import type { HttpLatency } from '../operations/metrics.js';
import { rateHeaders, tighter, type FixedWindowLimiter } from './rate-limit.js';

/** A GET route whose answers a view keeps: `prefix` + id is its path, `route` its template. */
export interface KeptRoute {
  prefix: string;
  route: string;
  view: ViewCache;
}

export interface LaneDeps {
  routes: KeptRoute[];
  ipLimiter: FixedWindowLimiter;
  keyLimiter: FixedWindowLimiter;
  verifier: ApiKeyVerifier;
  /** The client's rate-limit bucket, as the onRequest hook computes it; undefined when unknown. */
  clientOf: (req: IncomingMessage) => string | undefined;
  requestId: (req: IncomingMessage) => string;
  /** True once the server is closing (the hook then answers 503). */
  closing: () => boolean;
  /** The latency histogram the onResponse hook feeds. */
  observe?: HttpLatency['observe'];
}

/** Ids are UUIDs; the hook lower-cases them, so any case names the same object. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** fastify's content type for a JSON answer (http/kept-answers.ts sends the same). */
const JSON_TYPE = 'application/json; charset=utf-8';

/** Answers `req` when it is a kept read that passes every check; false: fastify must handle it. */
export interface KeptLane {
  (req: IncomingMessage, res: ServerResponse): boolean;
  /** Requests answered by the lane (tests and benchmarks tell the two paths apart by it). */
  answered: number;
}

export function keptLane(deps: LaneDeps): KeptLane {
  const lane: KeptLane = Object.assign(
    (req: IncomingMessage, res: ServerResponse): boolean => {
      const start = performance.now();
      let found: Found | undefined;
      try {
        found = admitted(deps, req);
      } catch {
        // A change marker that could not be read, say: the hook meets it too and answers it.
        return false;
      }
      if (!found) return false;
      send(deps, req, res, found);
      lane.answered++;
      deps.observe?.('GET', found.route.route, 200, (performance.now() - start) / 1000);
      return true;
    },
    { answered: 0 },
  );
  return lane;
}

interface Found {
  route: KeptRoute;
  body: string;
  client: string;
  keyId: string;
}

/** The kept answer of a request the onRequest hook would admit, else undefined. Counts nothing. */
function admitted(deps: LaneDeps, req: IncomingMessage): Found | undefined {
  // An Expect header is refused or answered by the hook (417, 100-continue): fastify's path.
  if (req.method !== 'GET' || req.headers.expect !== undefined || deps.closing()) return undefined;
  const url = req.url ?? '';
  const route = deps.routes.find((r) => url.startsWith(r.prefix));
  const id = route && url.slice(route.prefix.length);
  const apiKey = req.headers['x-api-key'];
  if (!route || !UUID.test(id as string) || typeof apiKey !== 'string') return undefined;
  const client = deps.clientOf(req);
  if (client === undefined || deps.ipLimiter.peek(client).remaining < 1) return undefined;
  const merchant = deps.verifier.authenticateFromMemory(apiKey);
  const keyId = keyIdOf(apiKey);
  if (!merchant || deps.keyLimiter.peek(keyId).remaining < 1) return undefined;
  const body = route.view.lookup((id as string).toLowerCase(), merchant.id, { countMiss: false });
  return body === undefined ? undefined : { route, body, client, keyId };
}

function send(deps: LaneDeps, req: IncomingMessage, res: ServerResponse, found: Found): void {
  // Counted only now that it is answered; both had room a moment ago, in this same turn.
  const limits = tighter(deps.ipLimiter.hit(found.client), deps.keyLimiter.hit(found.keyId));
  res.writeHead(200, {
    'x-request-id': deps.requestId(req),
    ...rateHeaders(limits),
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(found.body),
  });
  res.end(found.body);
}

const installed = new WeakMap<import('node:http').Server, KeptLane>();

/** The lane in front of `server`, if any. */
export function keptLaneOf(server: import('node:http').Server): KeptLane | undefined {
  return installed.get(server);
}

/**
 * Puts `lane` in front of fastify's request listener on `server`: fastify keeps its own server
 * (timeouts, keep-alive) and sees every request the lane leaves.
 */
export function installKeptLane(server: import('node:http').Server, lane: KeptLane): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  if (listeners.length !== 1) throw new Error(`kept lane: expected fastify's one request listener, found ${listeners.length}`);
  const fastify = listeners[0]!;
  server.removeListener('request', fastify);
  installed.set(server, lane);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!lane(req, res)) fastify(req, res);
  });
}
