/**
 * Every /v1 route plugin, registered in one place. A feature adds one line here; its routes live
 * in its own folder (`src/<feature>/routes/v1.ts`) and take the app's services.
 */
import type { Services } from '../services.js';
import { addressRoutes } from '../addresses/routes/v1.js';
import { invoiceRoutes } from '../invoices/routes/v1.js';
import { payoutRoutes } from '../payouts/routes/v1.js';
import type { ApiServer } from './server.js';

export async function registerV1Routes(app: ApiServer, services: Services): Promise<void> {
  await invoiceRoutes(app, services);
  await addressRoutes(app, services);
  await payoutRoutes(app, services);
}
