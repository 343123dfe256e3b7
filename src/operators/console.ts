/**
 * The operator console `/admin/v1`: the CLI's HTTP twin, registered on the admin listener only
 * (src/operations/admin.ts, which checks the operator token), never on the public one. Check
 * order: route (404) → operator token (401) → body (400/413/415) → validation (400) → route → the
 * same service function the CLI command calls, with the token id as the actor of every change it
 * records in the audit log.
 */
import { replyWithError } from '../http/conventions.js';
import type { Services } from '../services.js';
import { consoleError } from './errors.js';
import { assetRoutes } from './routes/assets.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { keyRoutes } from './routes/keys.js';
import { merchantRoutes } from './routes/merchants.js';
import { moneyRoutes } from './routes/money.js';
import { payoutRoutes } from './routes/payouts.js';
import { reportRoutes } from './routes/reports.js';
import { walletRoutes } from './routes/wallet.js';
import type { ConsoleServer } from './context.js';

export type { ConsoleServer };

export async function operatorConsole(app: ConsoleServer, s: Services): Promise<void> {
  app.setErrorHandler((err, req, reply) => replyWithError(err, req, reply, consoleError(err, req)));

  await merchantRoutes(app, s);
  await keyRoutes(app, s);
  await moneyRoutes(app, s);
  await assetRoutes(app, s);
  await payoutRoutes(app, s);
  await deliveryRoutes(app, s);
  await walletRoutes(app, s);
  await reportRoutes(app, s);
}
