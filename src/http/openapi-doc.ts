/**
 * The OpenAPI document outside a running server (`paygate openapi`, `npm run docs`,
 * `npm run lint:openapi`): the real app is built over a throwaway database, exactly as `serve`
 * builds it, so the document is the one `GET /v1/openapi.json` serves. No PUBLIC_BASE_URL: the
 * published reference names the relative server `/`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../app.js';
import { parseConfig } from '../config.js';

export type OpenApiDocument = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Which listener's document: the merchant API (/v1) or the cabinet (/cabinet/v1). */
export type OpenApiSurface = 'v1' | 'cabinet';

export async function buildOpenApiDocument(surface: OpenApiSurface = 'v1'): Promise<OpenApiDocument> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-openapi-'));
  try {
    const config = parseConfig({ DATABASE_URL: path.join(dir, 'paygate.db'), LOG_LEVEL: 'silent' });
    const app = await buildApp(config, { workers: false, cabinet: surface === 'cabinet' ? {} : false });
    try {
      const server = surface === 'cabinet' ? app.cabinet! : app.http;
      await server.ready();
      return server.swagger() as OpenApiDocument;
    } finally {
      await app.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
