/**
 * The OpenAPI documents outside a running server (`paygate openapi [--admin|--cabinet|--pay]`, `npm run
 * docs`, `npm run lint:openapi`): the real app is built over a throwaway database, exactly as
 * `serve` builds it, so the document is the one `GET /v1/openapi.json` (or the admin listener's
 * `GET /admin/v1/openapi.json`, or the cabinet's `GET /cabinet/v1/openapi.json`) serves. No PUBLIC_BASE_URL: the published reference names
 * the relative server `/`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp, type App } from '../app.js';
import { parseConfig } from '../config.js';
import { buildAdminServer } from '../operations/admin.js';

export type OpenApiDocument = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function withApp<T>(read: (app: App) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-openapi-'));
  try {
    const config = parseConfig({ DATABASE_URL: path.join(dir, 'paygate.db'), LOG_LEVEL: 'silent' });
    const app = await buildApp(config, { workers: false });
    try {
      return await read(app);
    } finally {
      await app.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The document of /v1 (the public listener). */
export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
  return withApp(async (app) => {
    await app.http.ready();
    return app.http.swagger() as OpenApiDocument;
  });
}

/** The document of the merchant cabinet /cabinet/v1 (its own listener), built without listening. */
export async function buildCabinetOpenApiDocument(): Promise<OpenApiDocument> {
  return withApp(async (app) => {
    const cabinet = app.cabinet as NonNullable<App['cabinet']>;
    await cabinet.ready();
    return cabinet.swagger() as OpenApiDocument;
  });
}

/** The document of the payment page's API /pay/v1 (its own listener), built without listening. */
export async function buildPayOpenApiDocument(): Promise<OpenApiDocument> {
  return withApp(async (app) => {
    const pay = app.pay as NonNullable<App['pay']>;
    await pay.ready();
    return pay.swagger() as OpenApiDocument;
  });
}

/** The document of the operator console /admin/v1 (the admin listener), built without listening. */
export async function buildAdminOpenApiDocument(): Promise<OpenApiDocument> {
  return withApp(async (app) => {
    const admin = await buildAdminServer(app.services, app.metrics);
    try {
      await admin.ready();
      return admin.swagger() as OpenApiDocument;
    } finally {
      await admin.close();
    }
  });
}
