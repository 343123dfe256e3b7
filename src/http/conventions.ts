/**
 * What every surface of paygate shares (surface.ts builds each of them): the request id, strict
 * JSON bodies of at most 16 KiB, strict validation, the security headers, the answers of
 * route_not_found and of faults found before routing, and one way of answering a thrown error in
 * the spec's error body.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../errors.js';
import { toAppError } from './errors.js';
import { parseJsonBody } from './json-body.js';

export const BODY_LIMIT = 16 * 1024;

/** Validation is strict: every problem listed, nothing removed, coerced or defaulted in a body. */
export const STRICT_AJV = {
  customOptions: { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: false },
} as const;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when well-formed, else a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * On every answer of every surface: nothing loads from outside the listener, no inline script or
 * style runs, and no other site may frame a page or read the answers.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Path ids (`id`, `*_id`) are stored in lower case: an upper-case spelling names the same record. */
export function lowerCaseIds(params: unknown): void {
  if (!params || typeof params !== 'object') return;
  const p = params as Record<string, unknown>;
  for (const [name, value] of Object.entries(p))
    if (typeof value === 'string' && (name === 'id' || name.endsWith('_id'))) p[name] = value.toLowerCase();
}

export const routeNotFound = () => new AppError('route_not_found', 'No route for this method and path');

/** The only body parser: JSON in UTF-8, unencoded (src/http/json-body.ts). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function acceptJsonBodies(app: FastifyInstance<any, any, any, any, any>): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    try {
      done(null, parseJsonBody(req as FastifyRequest, body as string));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
}

/**
 * Faults found by Node's HTTP parser (malformed request line or header, headers too large) never
 * reach fastify: answered in the spec's error shape on the socket.
 */
export function writeClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431 ? 'Request headers are too large' : status === 408 ? 'Request timed out' : 'Malformed HTTP request';
  const body = JSON.stringify(new AppError('bad_request', message, { status }).toBody());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Answers a thrown error in the spec's body with its status and headers. Bugs and outages are
 * logged as errors with a stack; a business 503 (payouts halted…) is a warning, and so is load
 * shedding (a 503 with Retry-After: credential verification capacity spent), which a brute force
 * would otherwise turn into a flood of error stacks.
 */
export function replyWithError(err: unknown, req: FastifyRequest, reply: FastifyReply, e: AppError = toAppError(err)) {
  const shed = e.code === 'service_unavailable' && e.headers?.['retry-after'] !== undefined;
  if (e.code === 'internal_error' || (e.code === 'service_unavailable' && !shed))
    req.log.error({ err, reqId: req.id }, `request failed: ${e.code}`);
  else if (e.status >= 500) req.log.warn({ reqId: req.id, code: e.code }, `request refused: ${e.code}`);
  if (e.headers) void reply.headers(e.headers);
  return reply.code(e.status).send(e.toBody());
}
