/**
 * The operator console `/admin/v1`: the CLI's HTTP twin, registered on the admin listener only
 * (src/operations/admin.ts), never on the public one. Check order: route (404, answered by the
 * listener before anything else) → operator token (401) → body (400/413/415) → validation (400) →
 * route → the same service function the CLI command calls, with the token id as the actor of
 * every change it records in the audit log.
 */
import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
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
import type { OperatorTokenVerifier } from './verifier.js';

export type { ConsoleServer };

export interface ConsoleDeps {
  services: Services;
  verifier: OperatorTokenVerifier;
}

export async function operatorConsole(app: ConsoleServer, deps: ConsoleDeps): Promise<void> {
  app.decorateRequest('operator', null);

  app.addHook('onRequest', async (req) => {
    // Ids are stored in lower case: an upper-case spelling names the same record, as on /v1.
    const params = req.params as Record<string, unknown>;
    for (const name of ['merchant_id', 'payout_id', 'key_id'])
      if (typeof params[name] === 'string') params[name] = params[name].toLowerCase();
    if (req.routeOptions.config.public) return;
    req.operator = await deps.verifier.authenticate(req.headers.authorization, req.ip);
  });

  // A query string is text: `?limit=20` is read as the number its schema asks for (bodies are
  // JSON and validated without any coercion).
  app.addHook('preValidation', async (req) => {
    const schema = req.routeOptions.schema?.querystring as TSchema | undefined;
    if (schema && req.query && typeof req.query === 'object') req.query = Value.Convert(schema, req.query);
    // A request without a body where every field is optional (`POST /payouts/halt`) is `{}`.
    const body = req.routeOptions.schema?.body as { required?: string[] } | undefined;
    if (body && req.body === undefined && !body.required?.length) req.body = {};
  });

  app.setErrorHandler((err, req, reply) => replyWithError(err, req, reply, consoleError(err, req)));

  app.get('/admin/v1/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());

  const s = deps.services;
  await merchantRoutes(app, s);
  await keyRoutes(app, s);
  await moneyRoutes(app, s);
  await assetRoutes(app, s);
  await payoutRoutes(app, s);
  await deliveryRoutes(app, s);
  await walletRoutes(app, s);
  await reportRoutes(app, s);
}
