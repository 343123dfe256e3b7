/**
 * The console answers the services' refusals in its own words. The services speak to the CLI and
 * name its flags (`--confirm-high-rate`); the console's fields are those flags in snake case
 * (`confirm_high_rate`), so a message names the field the client sends. A refusal of the CLI's
 * malformed-argument kind (`invalid_argument`) is, over HTTP, `400 validation_failed` with the
 * field's location in `details`, as ajv's findings are.
 */
import type { FastifyRequest } from 'fastify';
import { AppError, type ErrorDetail } from '../errors.js';
import { toAppError } from '../http/errors.js';

const FLAG = /--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)/g;
const snake = (flag: string) => flag.replace(/-/g, '_');

/** `--flag` becomes `flag` in snake case, except inside `…` (a command line quoted whole). */
export function inFieldNames(message: string): string {
  return message
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(FLAG, (_m, flag: string) => snake(flag))))
    .join('`');
}

interface RouteSchema {
  body?: { properties?: Record<string, unknown> };
  querystring?: { properties?: Record<string, unknown> };
  params?: { properties?: Record<string, unknown> };
}

/** Where the request carried `field`: `body.<field>`, `query.<field>` or `params.<field>`. */
function locate(req: FastifyRequest, field: string | null): string {
  const schema = (req.routeOptions.schema ?? {}) as RouteSchema;
  if (field === null) return 'body';
  if (schema.body?.properties?.[field]) return `body.${field}`;
  if (schema.querystring?.properties?.[field]) return `query.${field}`;
  if (schema.params?.properties?.[field]) return `params.${field}`;
  return 'body';
}

export function consoleError(err: unknown, req: FastifyRequest): AppError {
  const e = toAppError(err);
  if (e.code === 'validation_failed') {
    const details: ErrorDetail[] = (e.details ?? []).map((d) => ({
      path: d.path.replace(/^querystring\b/, 'query'),
      message: d.message,
    }));
    return new AppError('validation_failed', e.message, { details });
  }
  if (e.code === 'invalid_argument') {
    const flag = /--([a-z][a-z0-9-]*)/.exec(e.message)?.[1] ?? null;
    const field = flag === null ? null : snake(flag);
    const text = inFieldNames(e.message);
    // "percent must be below 100" → {path: body.percent, message: "must be below 100"}
    const message = field !== null && text.startsWith(`${field} `) ? text.slice(field.length + 1) : text;
    return new AppError('validation_failed', 'The request failed validation', {
      details: [{ path: locate(req, field), message: message.replace(/^:\s*/, '') }],
    });
  }
  const message = inFieldNames(e.message);
  if (message === e.message) return e;
  return new AppError(e.code, message, { status: e.status, ...(e.headers ? { headers: e.headers } : {}) });
}
