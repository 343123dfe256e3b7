/**
 * Every /cabinet/v1 route group, registered in one place. A group lives in its own file and takes
 * the cabinet's dependencies; a route with `:merchant_id` gets its merchant from the ownership
 * hook (ownership.ts), registered before these.
 */
import type { ApiServer } from '../http/surface.js';
import { accountRoutes } from './account-routes.js';
import { activityRoutes } from './activity-routes.js';
import { exceptionRoutes } from './exception-routes.js';
import type { CabinetDeps } from './context.js';
import { memberRoutes } from './member-routes.js';
import { merchantRoutes } from './merchant-routes.js';
import { pageInvoiceRoutes } from './page-invoice-routes.js';
import { refundRoutes } from './refund-routes.js';
import { reportRoutes } from './report-routes.js';
import { securityRoutes } from './security-routes.js';
import { sessionRoutes } from './session-routes.js';
import { settingsRoutes } from './settings-routes.js';
import { mailCabinetRoutes } from '../mail/routes/cabinet.js';

export async function registerCabinetRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  await sessionRoutes(app, deps);
  await accountRoutes(app, deps);
  await mailCabinetRoutes(app, deps);
  await securityRoutes(app, deps);
  await merchantRoutes(app, deps);
  await memberRoutes(app, deps);
  await activityRoutes(app, deps);
  await exceptionRoutes(app, deps);
  await pageInvoiceRoutes(app, deps);
  await refundRoutes(app, deps);
  await settingsRoutes(app, deps);
  // The page shows its Reports view because the served document lists these paths.
  await reportRoutes(app, deps);
}
