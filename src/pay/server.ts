/**
 * The payment page's listener (PAY_HOST:PAY_PORT, loopback by default): the page at
 * `/pay/{invoice_id}` and its API /pay/v1, for customers, never on the /v1 listener
 * (docs/adr/0064-payment-page-listener.md). Built by the one front door (src/http/surface.ts:
 * request ids, error body, 16 KiB strict JSON, route_not_found first, security headers, the per-IP
 * limit); no credential: the unguessable invoice id is the customer's only one.
 */
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { payUrl } from '../config.js';
import { AppError } from '../errors.js';
import { routeNotFound } from '../http/conventions.js';
import type { SharedRateCounts } from '../http/rate-counts.js';
import { buildSurface, type ApiServer } from '../http/surface.js';
import { packageRoot } from '../paths.js';
import type { Services } from '../services.js';
import type { Executor } from '../db/database.js';
import { payErrorPage } from './not-found.js';
import { payDocument } from './openapi.js';
import { findPageInvoice } from './store.js';
import { registerPayRoutes, registerRefundClaimRoutes } from './routes/pay.js';
import type { PageDeps } from './service.js';

/** The built page (`npm run build` bundles web/pay there). */
export const PAY_PAGE_DIR = () => path.join(packageRoot(), 'dist', 'web', 'pay');

const INVOICE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The page's dependencies from the services: the link base is the running listener's unless PAY_PUBLIC_URL names it. */
export function pageDeps(services: Services): PageDeps {
  return {
    db: services.db,
    clock: services.clock,
    catalog: services.catalog,
    allocator: services.addresses,
    payUrl: () => services.payUrl?.() ?? payUrl(services.config),
    minTimeToPayMs: services.config.payMinTimeToPayMs,
  };
}

export interface PayOptions {
  /** Where the built page is (default PAY_PAGE_DIR(); tests serve one of their own). */
  pageDir?: string;
}

export async function buildPayServer(
  services: Services,
  opts: PayOptions = {},
  rateCounts: SharedRateCounts | null = null,
  instrument?: (app: ApiServer) => void,
): Promise<ApiServer> {
  const { app } = await buildSurface({
    config: services.config,
    logger: services.logger.child({ component: 'pay' }),
    prefix: '/pay/v1',
    document: payDocument(services.config),
    perIp: { max: services.config.rateLimitPerIp, store: rateCounts?.store('pay') },
    // Its own proxy setting: the proxy in front of the page is not the one in front of /v1.
    trustProxy: services.config.payTrustProxy,
    // A customer's invoice: never kept by a cache on the way.
    noStore: true,
    errorPage: payErrorPage,
  });
  instrument?.(app);
  await registerPayRoutes(app, pageDeps(services));
  await registerRefundClaimRoutes(app, pageDeps(services));
  await registerPage(app, opts.pageDir ?? PAY_PAGE_DIR(), services.db);
  return app;
}

/**
 * The page: `GET /pay/{invoice_id}` answers its index.html, and each built file (script, style,
 * icon) is its own route under /pay/ (no wildcard: any other path is route_not_found).
 */
async function registerPage(app: ApiServer, dir: string, db: Executor): Promise<void> {
  if (existsSync(dir))
    await app.register(fastifyStatic, {
      root: dir,
      prefix: '/pay/',
      wildcard: false,
      index: false,
      serveDotFiles: false,
      cacheControl: false,
      setHeaders: (res) => res.setHeader('cache-control', 'no-cache'),
    });
  app.get('/pay/:invoice_id', { schema: { hide: true } }, async (req, reply) => {
    const { invoice_id: id } = req.params as { invoice_id: string };
    if (!INVOICE_ID.test(id)) throw routeNotFound();
    let html: Buffer;
    try {
      html = await readFile(path.join(dir, 'index.html'));
    } catch {
      throw new AppError('service_unavailable', 'The payment page is not built: run npm run build');
    }
    // An unknown id is the not-found page (in the customer's language), not a page that fails later.
    if (!(await findPageInvoice(db, id))) throw new AppError('invoice_not_found', 'Invoice not found');
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
  });
}
