/**
 * One mapping from any thrown error to the spec's error body. AppErrors carry their own code;
 * ajv failures become validation_failed with every problem listed; HTTP-level faults (bad JSON,
 * media type, size) become bad_request with their status; an unreachable database is 503; the
 * rest is a bug: 500 internal_error, logged with the request id, nothing internal in the body.
 */
import type { FastifyError } from 'fastify';
import { isDatabaseUnavailable } from '../db/database.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { DISPLAY_TEXT_PATTERN } from './schemas.js';

interface AjvIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Readable messages for the formats of the spec's tables (ajv would print the regex). */
const PATTERN_MESSAGES: Record<string, string> = {
  '^[\\x21-\\x7E]+$': 'must be printable ASCII characters (0x21 to 0x7E), without spaces',
  '^[A-Z0-9]+_[A-Z0-9]+$': 'must be an asset code such as USDT_TRON',
  [DISPLAY_TEXT_PATTERN]: 'must be printable text, without control or bidirectional control characters',
  '^[A-Za-z0-9]+$': 'must be ASCII letters and digits',
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$': 'must be a UUID',
};

function messageOf(issue: AjvIssue): string {
  if (issue.keyword === 'pattern') return PATTERN_MESSAGES[String(issue.params.pattern)] ?? 'has an invalid format';
  if (issue.keyword === 'format' && issue.params.format === 'uuid') return 'must be a UUID';
  if (issue.keyword === 'const') return `must be ${JSON.stringify(issue.params.allowedValue)}`;
  if (issue.keyword === 'enum')
    return `must be one of ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  return issue.message ?? 'is invalid';
}

function detailOf(context: string, issue: AjvIssue): ErrorDetail {
  const base = context + issue.instancePath.replace(/\//g, '.');
  if (issue.keyword === 'required')
    return { path: `${base}.${String(issue.params.missingProperty)}`, message: 'is required' };
  if (issue.keyword === 'additionalProperties') {
    return { path: `${base}.${String(issue.params.additionalProperty)}`, message: 'is not allowed' };
  }
  return { path: base, message: messageOf(issue) };
}

export function validationError(context: string, issues: AjvIssue[]): AppError {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    const d = detailOf(context, issue);
    const key = `${d.path}\u0000${d.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      details.push(d);
    }
  }
  return new AppError('validation_failed', 'The request failed validation', { details });
}

const HTTP_FAULTS: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type: send application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is larger than 16 KiB',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Body is empty but Content-Type is application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
  FST_ERR_BAD_URL: 'The URL is malformed',
};

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (Array.isArray(e?.validation)) {
    // `query.limit`, as the lists' own checks name query parameters (pagination.ts).
    const context = e.validationContext === 'querystring' ? 'query' : (e.validationContext ?? 'body');
    return validationError(context, e.validation);
  }
  if (isDatabaseUnavailable(err))
    return new AppError('service_unavailable', 'The service is temporarily unavailable; retry with backoff');
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    const message =
      HTTP_FAULTS[e.code] ??
      (e instanceof SyntaxError || /JSON/i.test(e.message) ? 'Body is not valid JSON' : 'Bad request');
    return new AppError('bad_request', message, { status });
  }
  return new AppError('internal_error', 'Internal error; it has been logged with the request id');
}
