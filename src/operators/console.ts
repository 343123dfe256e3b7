/**
 * The operator console `/admin/v1`: the CLI's HTTP twin, registered on the admin listener only
 * (src/operations/admin.ts, which checks the operator token), never on the public one. Check
 * order: route (404) → per-IP limit (429) → operator token (401; a read-only token's change 403) →
 * body (400/413/415) → validation (400) → route → the same service function the CLI command calls,
 * with the token id as the actor of every change it records in the audit log.
 */
import { invoiceRoutes } from '../invoices/routes/admin.js';
import { replyWithError } from '../http/conventions.js';
import { errorResponses } from '../http/schemas.js';
import type { Services } from '../services.js';
import { consoleError } from './errors.js';
import { assetRoutes } from '../assets/routes/admin.js';
import { deliveryRoutes } from '../webhooks/routes/admin.js';
import { keyRoutes } from '../keys/routes/admin.js';
import { merchantRoutes } from '../merchants/routes/admin.js';
import { moneyRoutes } from '../ledger/routes/admin.js';
import { exceptionRoutes } from '../exceptions/routes/admin.js';
import { payoutRoutes } from '../payouts/routes/admin.js';
import { refundRoutes } from '../refunds/routes/admin.js';
import { reportRoutes } from '../reports/routes/admin.js';
import { walletRoutes } from '../wallet/routes/admin.js';
import type { ConsoleServer } from './context.js';
import { isRead } from './verifier.js';

export type { ConsoleServer };

export async function operatorConsole(app: ConsoleServer, s: Services): Promise<void> {
  app.setErrorHandler((err, req, reply) => replyWithError(err, req, reply, consoleError(err, req)));
  // Every operation that is not a read answers 403 operator_token_read_only to a read-only token:
  // each one documents it, from this one place.
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every(isRead)) return;
    const schema = route.schema ?? {};
    route.schema = { ...schema, response: { ...(schema.response as object | undefined), ...errorResponses(403) } };
  });

  await merchantRoutes(app, s);
  await invoiceRoutes(app, s);
  await keyRoutes(app, s);
  await moneyRoutes(app, s);
  await assetRoutes(app, s);
  await payoutRoutes(app, s);
  await exceptionRoutes(app, s);
  await refundRoutes(app, s);
  await deliveryRoutes(app, s);
  await walletRoutes(app, s);
  await reportRoutes(app, s);
}
