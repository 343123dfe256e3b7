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

export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-openapi-'));
  try {
    const config = parseConfig({ DATABASE_URL: path.join(dir, 'paygate.db'), LOG_LEVEL: 'silent' });
    const app = await buildApp(config, { workers: false });
    try {
      await app.http.ready();
      return app.http.swagger() as OpenApiDocument;
    } finally {
      await app.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
