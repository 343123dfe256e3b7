/**
 * The one front door of every HTTP surface (/v1, the admin listener with /admin/v1, /cabinet/v1):
 * one fastify instance with the conventions every surface shares (conventions.ts: request ids, the
 * 16 KiB JSON-only body, strict validation, the error body, the security headers), path ids in
 * lower case, query strings read as their schemas ask, answers for faults found before routing and
 * for Node's client errors, `404 route_not_found` before the body is read, 503 while closing, the
 * optional per-IP limit with its `x-ratelimit-*` headers on every answer, and the surface's OpenAPI
 * document (openapi.ts) at `<prefix>/openapi.json`. A surface adds only its own credential check
 * (`authenticate`) and its routes.
 */
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
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
import type { Config, TrustProxy } from '../config.js';
import { AppError } from '../errors.js';
import {
  acceptJsonBodies,
  BODY_LIMIT,
  lowerCaseIds,
  replyWithError,
  requestIdOf,
  routeNotFound as notFound,
  SECURITY_HEADERS,
  STRICT_AJV,
  writeClientError,
} from './conventions.js';
import { toAppError } from './errors.js';
import { trackRequestsInFlight } from './in-flight.js';
import { surfaceSwaggerOptions, type SurfaceDocument } from './openapi.js';
import { rateCheck, rateLimited, setRateHeaders, type RateCheck, type RateState } from './rate-limit.js';
import { ErrorBody } from './schemas.js';
import { endConnectionsOnClose } from './shutdown.js';

export type ApiServer = FastifyInstance<
  import('node:http').Server,
  IncomingMessage,
  import('node:http').ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export { BODY_LIMIT, requestIdOf };

declare module 'fastify' {
  interface FastifyRequest {
    /** What the per-IP limit counts for this client (its address, an IPv6 client's /64). */
    client: string;
  }
  interface FastifyContextConfig {
    /** A route that needs no credentials (the OpenAPI documents, the cabinet's sign-in). */
    public?: boolean;
    /**
     * A route outside the per-IP limit (the admin listener's probes): its requests are not
     * counted and never refused 429; its answers show the client's count all the same.
     */
    uncounted?: boolean;
  }
}

/**
 * A surface's credential check, run after the front checks on every route not marked `public`
 * (a route nobody marked is never left open); `ip` is the client's per-IP state (null on a surface
 * without a limit).
 */
export type Authenticate = (req: FastifyRequest, reply: FastifyReply, ip: RateState | null) => Promise<void>;

export interface SurfaceOptions {
  config: Config;
  logger: Logger;
  /** Where the surface's API lives (`/v1`): its document is `<prefix>/openapi.json`. */
  prefix: string;
  document: SurfaceDocument;
  /** The per-IP limit (requests a minute) and where it counts (rate-counts.ts); none: no limit. */
  perIp?: { max: number; store?: FastifyRateLimitStoreCtor };
  /**
   * Which proxies this listener trusts to name the client's address in X-Forwarded-For (each
   * listener has its own proxy, or none: TRUST_PROXY for /v1, CABINET_TRUST_PROXY for the
   * cabinet). Absent: none, the socket's address (the admin listener, reached directly).
   */
  trustProxy?: TrustProxy;
  /** API answers under the prefix are `Cache-Control: no-store` (a signed-in owner's data). */
  noStore?: boolean;
  /** A request without a body where the body schema requires nothing is `{}` (the console's flags). */
  emptyBodyIsObject?: boolean;
  /** Made once the surface exists (its limits can be made then): the surface's credential check. */
  authenticate?: (surface: Surface) => Authenticate;
  /**
   * A refusal answered otherwise than the JSON error body (the payment page's not-found page for a
   * browser, its redirect of a trailing slash); undefined keeps the JSON body.
   */
  errorPage?: (e: AppError, req: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
}

export interface Surface {
  app: ApiServer;
  /** The per-IP limit; null on a surface without one. */
  perIp: RateCheck | null;
  /** A further limit of `max` requests a minute per `keyOf(req)` (the /v1 per-key limit). */
  limit(max: number, keyOf: (req: FastifyRequest) => string): RateCheck;
  /** True once close() has begun. */
  closing(): boolean;
}

/** Requests whose `Expect` header Node refused (not 100-continue): answered 417 by frontChecks. */
const unmetExpectation = new WeakSet<IncomingMessage>();

/**
 * fastify 5 ignores a numeric trustProxy (it trusts no hop, so every client behind the proxy would
 * share the proxy's rate-limit bucket): a hop count becomes a function trusting that many hops.
 */
function trustProxyOption(tp: TrustProxy): false | string[] | ((addr: string, hop: number) => boolean) {
  if (typeof tp === 'number') return (_addr, hop) => hop < tp;
  return tp;
}

export async function buildSurface(opts: SurfaceOptions): Promise<Surface> {
  // The per-IP limit, made once the plugin is registered; framework errors (below) come only once
  // the server listens.
  const limits: { perIp: RateCheck | null } = { perIp: null };
  const requestLines = opts.config.logLevel === 'debug' || opts.config.logLevel === 'trace';
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: requestIdOf,
    bodyLimit: BODY_LIMIT,
    trustProxy: trustProxyOption(opts.trustProxy ?? false),
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
      void reply.header('x-request-id', req.id ?? requestIdOf(req.raw)).headers(SECURITY_HEADERS);
      const send = () => void (reply as FastifyReply).code(e.status).send(e.toBody());
      if (!limits.perIp) return send();
      // Not counted (the request never reached the hooks), only shown.
      void limits.perIp(req, { increment: false }).then((s) => {
        setRateHeaders(reply as FastifyReply, s);
        send();
      }, send);
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
  app.decorateRequest('client', '');

  // Every limiter made on this server counts in the store set here: this process's memory, or
  // Redis shared by the replicas (REDIS_URL).
  if (opts.perIp) {
    await app.register(rateLimit, { global: false, ...(opts.perIp.store ? { store: opts.perIp.store } : {}) });
    limits.perIp = rateCheck(app, opts.perIp.max);
  }
  const surface: Surface = {
    app,
    perIp: limits.perIp,
    limit: (max, keyOf) => {
      if (!opts.perIp) throw new Error('a surface without a per-IP limit has no further limits');
      return rateCheck(app, max, keyOf);
    },
    closing,
  };

  // Load shedding is counted on /metrics; conventions.ts says what is logged.
  app.setErrorHandler((err, req, reply) => {
    const e = toAppError(err);
    return opts.errorPage?.(e, req, reply) ?? replyWithError(err, req, reply, e);
  });

  // A query string is text: `?limit=20` is read as the number its schema asks for (bodies are
  // JSON and validated without any coercion). Only routes that need it get the hook: every hook
  // costs each request that passes it.
  app.addHook('onRoute', (route) => {
    const query = route.schema?.querystring as TSchema | undefined;
    const body = route.schema?.body as { required?: string[] } | undefined;
    const emptyBody = opts.emptyBodyIsObject === true && body !== undefined && !body.required?.length;
    if (!query && !emptyBody) return;
    const convert = async (req: FastifyRequest) => {
      if (query && req.query && typeof req.query === 'object') req.query = Value.Convert(query, req.query);
      if (emptyBody && req.body === undefined) req.body = {};
    };
    const own = route.preValidation;
    route.preValidation = own ? [convert, ...(Array.isArray(own) ? own : [own])] : convert;
  });

  const authenticate = opts.authenticate?.(surface);
  const api = `${opts.prefix}/`;
  app.addHook('onRequest', async (req, reply) => {
    lowerCaseIds(req.params);
    void reply.headers(SECURITY_HEADERS);
    if (opts.noStore && req.url.startsWith(api)) reply.header('cache-control', 'no-store');
    const ip = await frontChecks(surface, req, reply);
    req.client = ip?.key ?? req.ip;
    if (!authenticate || req.routeOptions.config.public) return;
    await authenticate(req, reply, ip);
  });

  await app.register(swagger, surfaceSwaggerOptions(opts.document, opts.perIp !== undefined));
  app.get(`${opts.prefix}/openapi.json`, { schema: { hide: true }, config: { public: true } }, async () =>
    app.swagger(),
  );

  // Normally answered by frontChecks already (before the body is read).
  app.setNotFoundHandler((_req, reply) => reply.code(404).send(notFound().toBody()));
  return surface;
}

/**
 * The first checks of every request, in the documented order, before fastify reads the body:
 * request id, 503 while closing, the per-IP count (its headers set), `Expect`, route_not_found,
 * then the per-IP limit. Returns the client's rate state (null without a limit).
 */
async function frontChecks(surface: Surface, req: FastifyRequest, reply: FastifyReply): Promise<RateState | null> {
  reply.header('x-request-id', req.id);
  if (surface.closing()) {
    if (surface.perIp) setRateHeaders(reply, await surface.perIp(req, { increment: false }));
    throw new AppError('service_unavailable', 'The server is shutting down; retry shortly', {
      headers: { 'retry-after': '1' },
    });
  }
  const counted = req.routeOptions.config?.uncounted !== true;
  const ip = surface.perIp ? await surface.perIp(req, { increment: counted }) : null;
  if (ip) setRateHeaders(reply, ip);
  if (unmetExpectation.has(req.raw)) {
    // The body is never read: the connection is not reused after it.
    reply.header('connection', 'close');
    throw new AppError('bad_request', 'Only "Expect: 100-continue" is supported', { status: 417 });
  }
  // route_not_found comes first. Answered here, not by the not-found handler: that one runs
  // after fastify has read and parsed the body, so a malformed, oversized or encoded body on an
  // unknown route would be answered 400/413/415 instead of 404, and unauthenticated JSON parsed.
  if (req.is404) throw notFound();
  if (ip?.exceeded && counted) throw rateLimited(ip);
  return ip;
}
