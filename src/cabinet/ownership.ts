/**
 * Isolation by construction: every cabinet route whose path has `:merchant_id` gets the merchant
 * from one hook, after validation and before its handler, and only when the session's account
 * owns it; another account's merchant is `merchant_not_found` exactly as an absent one. Handlers
 * take the merchant from `ownedMerchantOf(req)` and have no other way to name one.
 */
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { AppError } from '../errors.js';
import type { ApiServer } from '../http/surface.js';
import type { MerchantRow } from '../merchants/store.js';
import { ownedMerchant } from '../owners/store.js';
import { sessionOf } from './context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The session's own merchant of the path's `:merchant_id`; set before the handler runs. */
    ownedMerchant: MerchantRow | null;
  }
}

export const merchantNotFound = (id: string) => new AppError('merchant_not_found', `Merchant ${id} does not exist`);

/** Registers the hook on every route added after it whose path names a merchant. */
export function resolveOwnedMerchants(app: ApiServer, db: Db): void {
  app.decorateRequest('ownedMerchant', null);
  const resolve = async (req: FastifyRequest) => {
    const id = (req.params as { merchant_id: string }).merchant_id;
    const m = await ownedMerchant(db, sessionOf(req).owner.id, id);
    if (!m) throw merchantNotFound(id);
    req.ownedMerchant = m;
  };
  app.addHook('onRoute', (route) => {
    if (!route.url.includes(':merchant_id')) return;
    const own = route.preHandler;
    route.preHandler = own ? [resolve, ...(Array.isArray(own) ? own : [own])] : resolve;
  });
}

/** The owned merchant of a merchant route (the hook has set it; anything else is a bug). */
export function ownedMerchantOf(req: FastifyRequest): MerchantRow {
  if (!req.ownedMerchant) throw new Error(`${req.routeOptions.url} has no owned merchant: the hook did not run`);
  return req.ownedMerchant;
}
