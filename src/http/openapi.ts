/**
 * The one OpenAPI 3.1 builder of every surface (/v1, /admin/v1, /cabinet/v1): @fastify/swagger
 * generates the document from the route schemas (the same schemas that validate requests); this
 * file adds what every surface shares (version, contact, licence, stable component names, readable
 * response descriptions, the headers every answer carries) to what a surface names of its own
 * (SurfaceDocument: title, description, tags, servers, security scheme, its own descriptions).
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What one surface says of itself in its document. */
export interface SurfaceDocument {
  title: string;
  description: string;
  /** The operation groups; every operation names one of them in its schema's `tags`. */
  tags: Array<{ name: string; description: string }>;
  servers: Array<{ url: string; description: string }>;
  securitySchemes: Json;
  /** Alternatives: a request carries any one of them. */
  security: Array<Record<string, string[]>>;
  /** Response descriptions by status, over the ones every surface shares (SHARED_DESCRIPTIONS). */
  descriptions: Record<string, string>;
  /** The statuses whose answers carry Retry-After (default: 429). */
  retryAfter?: readonly string[];
  /** Document-level parts added after generation (the /v1 webhook events). */
  extend?: (doc: Json) => void;
}

/** What the statuses mean on every surface unless the surface says more. */
const SHARED_DESCRIPTIONS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '400': 'bad_request (HTTP-level fault) or validation_failed (details list every problem)',
  '413': 'bad_request: body larger than 16 KiB',
  '415': 'bad_request: unsupported Content-Type',
  '422': 'A business rule refused the request (see error.code)',
  '429': 'rate_limited: retry after Retry-After seconds',
  '503': 'Temporarily unavailable (see error.code); retry with backoff',
};

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });

/** The header every answer of every surface carries. */
const REQUEST_ID_HEADER = {
  'X-Request-Id': {
    description: "The request id: the client's when well-formed, else a new UUID",
    schema: { type: 'string' },
  },
};

/** The headers of a surface with a per-IP limit: every answer shows where the client stands. */
const RATE_HEADERS = {
  'x-ratelimit-limit': integerHeader('Requests allowed in the current one-minute window'),
  'x-ratelimit-remaining': integerHeader('Requests left in the window'),
  'x-ratelimit-reset': integerHeader('Seconds until the window resets'),
};

/** The swagger options of a surface; `rateLimited`: its answers carry the `x-ratelimit-*` headers. */
export function surfaceSwaggerOptions(surface: SurfaceDocument, rateLimited: boolean): FastifyDynamicSwaggerOptions {
  const headers = rateLimited ? { ...REQUEST_ID_HEADER, ...RATE_HEADERS } : REQUEST_ID_HEADER;
  const descriptions = { ...SHARED_DESCRIPTIONS, ...surface.descriptions };
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: surface.title,
        version: '1',
        description: surface.description,
        // The operator of an installation is the clients' contact; paygate itself ships no URL.
        contact: { name: 'The operator of this paygate installation' },
        license: { name: 'UNLICENSED (proprietary)' },
      },
      servers: surface.servers,
      tags: surface.tags,
      components: { securitySchemes: surface.securitySchemes },
      security: surface.security,
    },
    // Shared schemas keep their $id as the component name (ErrorBody), not def-0.
    refResolver: {
      buildLocalReference: (json: Json, _base: unknown, _fragment: unknown, i: number) =>
        String(json.$id ?? `def-${i}`),
    },
    transformObject: (doc) => {
      const api = (doc as { openapiObject: Json }).openapiObject;
      describeResponses(api, descriptions, headers, surface.retryAfter ?? ['429']);
      surface.extend?.(api);
      return api;
    },
  };
}

/**
 * Every response of `doc`: a readable description by status where fastify left its default, the
 * headers every answer carries, and Retry-After on the statuses that send it.
 */
function describeResponses(
  doc: Json,
  descriptions: Record<string, string>,
  headers: Json,
  retryAfter: readonly string[],
): void {
  for (const operations of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(operations)) {
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        if (!response.description || response.description === 'Default Response')
          response.description = descriptions[status] ?? 'Response';
        response.headers = { ...headers, ...(response.headers ?? {}) };
        if (retryAfter.includes(status))
          response.headers['Retry-After'] = integerHeader('Seconds to wait before retrying');
      }
    }
  }
}
