/**
 * A JSON listener with the public one's front door (the public /v1 one and the cabinet's): the
 * conventions every listener shares (conventions.ts: request ids, the 16 KiB JSON-only body, the
 * error body), answers for faults found before routing, `404 route_not_found` before the body is
 * read, the per-IP limit with its `x-ratelimit-*` headers on every answer, and 503 while closing.
 * A listener adds its own authentication after `frontChecks`.
 */
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import {
  acceptJsonBodies,
  BODY_LIMIT,
  replyWithError,
  requestIdOf,
  routeNotFound as notFound,
  STRICT_AJV,
  writeClientError,
} from './conventions.js';
import { toAppError } from './errors.js';
import { ErrorBody } from './schemas.js';
import { trackRequestsInFlight } from './in-flight.js';
import { endConnectionsOnClose } from './shutdown.js';

export type ApiServer = FastifyInstance<
  import('node:http').Server,
  IncomingMessage,
  import('node:http').ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export { BODY_LIMIT, requestIdOf };

/** Where a client or a key stands in its window of a minute. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window ends. */
  reset: number;
  exceeded: boolean;
  /** What is counted: the client's address (an IPv6 client's /64), or the key id. */
  key: string;
}

export type RateCheck = (req: FastifyRequest, opts?: { increment?: boolean }) => Promise<RateState>;

/** Counters held per limit; past it the client seen least recently is dropped first. */
const RATE_COUNTERS = 100_000;

/**
 * A limit of `max` requests a minute counted by @fastify/rate-limit, per client address (IPv6 by
 * its /64) or per `keyOf(req)`. The headers are written by the hook below, not by the plugin: its
 * own hooks are per route, so 404s and answers before routing would go without them.
 */
export function rateCheck(app: ApiServer, max: number, keyOf?: (req: FastifyRequest) => string): RateCheck {
  // `cache` sizes the store made for this limiter; the plugin's types leave it out of these options.
  const options = { max, timeWindow: 60_000, cache: RATE_COUNTERS, ...(keyOf ? { keyGenerator: keyOf } : {}) };
  const check = app.createRateLimit(options);
  return async (req, opts) => {
    const r = await check(req, opts);
    // Only an allow list answers without counts, and none is configured.
    if (r.isAllowed) throw new Error('rate limit: answered without counts');
    return { limit: r.max, remaining: r.remaining, reset: r.ttlInSeconds, exceeded: r.isExceeded, key: r.key };
  };
}

export function setRateHeaders(reply: FastifyReply, s: RateState): void {
  void reply
    .header('x-ratelimit-limit', s.limit)
    .header('x-ratelimit-remaining', s.remaining)
    .header('x-ratelimit-reset', s.reset);
}

/** Requests whose `Expect` header Node refused (not 100-continue): answered 417 by frontChecks. */
const unmetExpectation = new WeakSet<IncomingMessage>();

export function rateLimited(s: RateState): AppError {
  return new AppError('rate_limited', `Too many requests; retry in ${s.reset} s`, {
    headers: { 'retry-after': String(s.reset) },
  });
}

/**
 * fastify 5 ignores a numeric trustProxy (it trusts no hop, so every client behind the proxy would
 * share the proxy's rate-limit bucket): a hop count becomes a function trusting that many hops.
 */
function trustProxyOption(tp: Config['trustProxy']): false | string[] | ((addr: string, hop: number) => boolean) {
  if (typeof tp === 'number') return (_addr, hop) => hop < tp;
  return tp;
}

export interface JsonServer {
  app: ApiServer;
  /** The per-IP limit (API_RATE_LIMIT_PER_IP), shown on every answer. */
  perIp: RateCheck;
  /** True once close() has begun. */
  closing(): boolean;
}

export interface JsonServerDeps {
  config: Config;
  logger: Logger;
  /** Where the limits count (rate-counts.ts: Redis shared by the replicas); default: in this process. */
  rateStore?: FastifyRateLimitStoreCtor;
}

export async function createJsonServer(deps: JsonServerDeps): Promise<JsonServer> {
  // The per-IP limit, made once the plugin is registered; framework errors (below) come only once
  // the server listens.
  const limits: { perIp?: RateCheck } = {};
  const requestLines = deps.config.logLevel === 'debug' || deps.config.logLevel === 'trace';
  const trustProxy = trustProxyOption(deps.config.trustProxy);
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: requestIdOf,
    bodyLimit: BODY_LIMIT,
    trustProxy,
    routerOptions: { maxParamLength: 2048 },
    // Per-request lines only when debugging; failures are logged by the error handler.
    logController: new LogController({ disableRequestLogging: !requestLines }),
    // A child logger per request costs a pino child (bindings serialized, redaction applied) on
    // every request; without request lines our own log calls carry reqId themselves.
    ...(requestLines ? {} : { childLoggerFactory: (logger: FastifyBaseLogger) => logger }),
    ajv: STRICT_AJV,
    // Faults found before routing (a malformed URL, an over-long parameter) skip the hooks, so the
    // headers every response carries are set here too.
    frameworkErrors: (err, req, reply) => {
      const e = toAppError(err);
      void reply.header('x-request-id', req.id ?? requestIdOf(req.raw));
      const send = () => void (reply as FastifyReply).code(e.status).send(e.toBody());
      if (!limits.perIp) return send();
      // Not counted (the request never reached the hooks), only shown.
      void limits
        .perIp(req, { increment: false })
        .then(
          (s) => setRateHeaders(reply as FastifyReply, s),
          () => undefined,
        )
        .finally(send);
    },
    // Faults found by Node's HTTP parser never reach fastify (conventions.ts).
    clientErrorHandler: (err, socket) => writeClientError(err, socket),
    // fastify's own answer while closing is `{"error":"Service Unavailable",…}` without
    // X-Request-Id: a request that reaches a closing server (on a connection still open, its
    // headers part sent when the close began) is refused by frontChecks instead, in the spec's
    // error shape.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as ApiServer;

  trackRequestsInFlight(app);

  const closing = endConnectionsOnClose(app);

  // Node answers an `Expect` other than 100-continue itself, with an empty 417 (no error body, no
  // X-Request-Id), unless someone listens for it. The request is handed to fastify as Node would
  // hand any other, marked, and refused by frontChecks: answered here on the raw response it
  // lacked the rate headers every response carries and was not counted.
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    unmetExpectation.add(req);
    app.server.emit('request', req, res);
  });

  acceptJsonBodies(app);
  app.addSchema(ErrorBody);

  // Every limiter made on this server counts in the store set here: this process's memory, or
  // Redis shared by the replicas (REDIS_URL).
  await app.register(rateLimit, { global: false, ...(deps.rateStore ? { store: deps.rateStore } : {}) });
  const perIp = rateCheck(app, deps.config.rateLimitPerIp);
  limits.perIp = perIp;

  // Load shedding is counted on /metrics; conventions.ts says what is logged.
  app.setErrorHandler((err, req, reply) => replyWithError(err, req, reply));

  // A query string is text: `?limit=20` is read as the number its schema asks for (bodies are
  // JSON and validated without any coercion). Only routes with a query schema get the hook: every
  // hook costs each request that passes it.
  app.addHook('onRoute', (route) => {
    const schema = route.schema?.querystring as TSchema | undefined;
    if (!schema) return;
    const convert = async (req: FastifyRequest) => {
      if (req.query && typeof req.query === 'object') req.query = Value.Convert(schema, req.query);
    };
    const own = route.preValidation;
    route.preValidation = own ? [convert, ...(Array.isArray(own) ? own : [own])] : convert;
  });

  // Normally answered by frontChecks already (before the body is read).
  app.setNotFoundHandler((_req, reply) => reply.code(404).send(notFound().toBody()));

  return { app, perIp, closing };
}

/**
 * The first checks of every request, in the documented order, run in an onRequest hook before
 * fastify reads the body: request id, 503 while closing, the per-IP count (its headers set),
 * `Expect`, route_not_found, then the per-IP limit. Returns the client's rate state; a listener
 * authenticates after it.
 */
export async function frontChecks(server: JsonServer, req: FastifyRequest, reply: FastifyReply): Promise<RateState> {
  reply.header('x-request-id', req.id);
  if (server.closing()) {
    setRateHeaders(reply, await server.perIp(req, { increment: false }));
    throw new AppError('service_unavailable', 'The server is shutting down; retry shortly', {
      headers: { 'retry-after': '1' },
    });
  }
  const ip = await server.perIp(req);
  setRateHeaders(reply, ip);
  if (unmetExpectation.has(req.raw)) {
    // The body is never read: the connection is not reused after it.
    reply.header('connection', 'close');
    throw new AppError('bad_request', 'Only "Expect: 100-continue" is supported', { status: 417 });
  }
  // route_not_found comes first. Answered here, not by the not-found handler: that one runs
  // after fastify has read and parsed the body, so a malformed, oversized or encoded body on an
  // unknown route would be answered 400/413/415 instead of 404, and unauthenticated JSON parsed.
  if (req.is404) throw notFound();
  if (ip.exceeded) throw rateLimited(ip);
  return ip;
}
