/**
 * The payment page's listener (PAY_HOST:PAY_PORT, loopback by default): the page at
 * `/pay/{invoice_id}` and its API /pay/v1, for customers, never on the /v1 listener
 * (docs/adr/0064-payment-page-listener.md). Built by the one front door (src/http/surface.ts:
 * request ids, error body, 16 KiB strict JSON, route_not_found first, security headers, the per-IP
 * limit); no credential: the unguessable invoice id is the customer's only one.
 */
import path from 'node:path';
import { payUrl } from '../config.js';
import { AppError } from '../errors.js';
import { routeNotFound } from '../http/conventions.js';
import type { SharedRateCounts } from '../http/rate-counts.js';
import { readStaticFile, registerStaticFolder, sendStatic, type StaticFile } from '../http/static.js';
import { buildSurface, type ApiServer } from '../http/surface.js';
import { packageRoot } from '../paths.js';
import type { Services } from '../services.js';
import { payErrorPage } from './not-found.js';
import { payDocument } from './openapi.js';
import { findRefund } from '../refunds/store.js';
import { hasReceipt } from './receipt.js';
import { findPageInvoice } from './store.js';
import { registerPayRoutes, registerRefundClaimRoutes } from './routes/pay.js';
import { registerPayReceiptRoutes } from './routes/pay-receipt.js';
import type { PageDeps } from './service.js';

/** The built page (`npm run build` bundles web/pay there). */
export const PAY_PAGE_DIR = () => path.join(packageRoot(), 'dist', 'web', 'pay');

/** An id in a link (invoice or refund), in either case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The page's dependencies from the services: the link base is the running listener's unless PAY_PUBLIC_URL names it. */
export function pageDeps(services: Services): PageDeps {
  return {
    db: services.db,
    clock: services.clock,
    catalog: services.catalog,
    allocator: services.addresses,
    payUrl: () => services.payUrl?.() ?? payUrl(services.config),
    minTimeToPayMs: services.config.payMinTimeToPayMs,
    network: services.config.tronNetwork,
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
  await registerPayReceiptRoutes(app, pageDeps(services));
  await registerPage(app, opts.pageDir ?? PAY_PAGE_DIR(), pageDeps(services));
  return app;
}

/**
 * The page: `GET /pay/{invoice_id}`, its receipt `/pay/{invoice_id}/receipt` (once paid) and a
 * refund's claim page `/pay/refund/{refund_id}` answer its index.html (the bundle renders each by
 * its path); an unknown id, or a receipt before the payment, is the not-found page. Each built file
 * (script, style, icon, catalogs) is its own route under /pay/ through the one static server of the
 * pages (src/http/static.ts): precompressed, hashed names cached a year.
 */
async function registerPage(app: ApiServer, dir: string, deps: PageDeps): Promise<void> {
  registerStaticFolder(app, { root: dir, prefix: '/pay/', exclude: ['index.html'] });
  let built: StaticFile | null = null;
  // Asked first: an unbuilt page says so for any link, before any lookup.
  const index = (): StaticFile => {
    try {
      return (built ??= readStaticFile(path.join(dir, 'index.html')));
    } catch {
      throw new AppError('service_unavailable', 'The payment page is not built: run npm run build');
    }
  };
  app.get('/pay/:invoice_id', { schema: { hide: true } }, async (req, reply) => {
    const { invoice_id: id } = req.params as { invoice_id: string };
    if (!UUID.test(id)) throw routeNotFound();
    const page = index();
    // An unknown id is the not-found page (in the customer's language), not a page that fails later.
    if (!(await findPageInvoice(deps.db, id))) throw new AppError('invoice_not_found', 'Invoice not found');
    return sendStatic(req, reply, page);
  });
  app.get('/pay/:invoice_id/receipt', { schema: { hide: true } }, async (req, reply) => {
    const { invoice_id: id } = req.params as { invoice_id: string };
    if (!UUID.test(id)) throw routeNotFound();
    const page = index();
    // Before the payment there is no receipt: the same not-found page as an unknown id.
    if (!(await hasReceipt(deps, id))) throw new AppError('invoice_not_found', 'Invoice not found');
    return sendStatic(req, reply, page);
  });
  app.get('/pay/refund/:refund_id', { schema: { hide: true } }, async (req, reply) => {
    const { refund_id: id } = req.params as { refund_id: string };
    if (!UUID.test(id)) throw routeNotFound();
    const page = index();
    if (!(await findRefund(deps.db, id.toLowerCase(), null)))
      throw new AppError('refund_not_found', 'Refund not found');
    return sendStatic(req, reply, page);
  });
}
