/**
 * The only body parser of /v1: JSON in UTF-8, unencoded. Plain JSON.parse keeps a `__proto__` key
 * as an ordinary own property (it never touches a prototype), so the strict route schemas report
 * it as a field that is not allowed instead of a misleading "invalid JSON". Anything else is a
 * `bad_request` with the status that names the cause (400 syntax, 415 media type or encoding).
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

const UTF8 = /^utf-?8$/i;

function charsetOf(contentType: string | undefined): string | null {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m ? (m[1] as string) : null;
}

export function parseJsonBody(req: FastifyRequest, body: string): unknown {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    throw new AppError('bad_request', 'Content-Encoding is not supported: send the JSON body unencoded', {
      status: 415,
    });
  }
  const charset = charsetOf(req.headers['content-type']);
  if (charset !== null && !UTF8.test(charset)) {
    throw new AppError('bad_request', 'Only UTF-8 JSON bodies are supported', { status: 415 });
  }
  if (body.length === 0) throw new AppError('bad_request', 'Body is empty but Content-Type is application/json');
  try {
    return JSON.parse(body);
  } catch {
    throw new AppError('bad_request', 'Body is not valid JSON');
  }
}
