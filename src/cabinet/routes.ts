/**
 * Every /cabinet/v1 route group, registered in one place. A group lives in its own file and takes
 * the cabinet's dependencies; a route with `:merchant_id` gets its merchant from the ownership
 * hook (ownership.ts), registered before these.
 */
import type { ApiServer } from '../http/surface.js';
import { accountRoutes } from './routes/cabinet-account.js';
import { activityRoutes } from './routes/cabinet-activity.js';
import { exceptionRoutes } from '../exceptions/routes/cabinet.js';
import type { CabinetDeps } from './context.js';
import { memberRoutes } from './routes/cabinet-members.js';
import { merchantRoutes } from '../merchants/routes/cabinet.js';
import { pageInvoiceRoutes } from '../pay/routes/cabinet.js';
import { refundRoutes } from '../refunds/routes/cabinet.js';
import { reportRoutes } from '../reports/routes/cabinet.js';
import { securityRoutes } from './routes/cabinet-security.js';
import { sessionRoutes } from './routes/cabinet-sessions.js';
import { settingsRoutes } from '../merchants/routes/cabinet-settings.js';
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
