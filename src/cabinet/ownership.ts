/**
 * Isolation and roles by construction: every cabinet route whose path has `:merchant_id` gets the
 * merchant from one hook, and only when the session's account holds it; another account's
 * merchant is `merchant_not_found` exactly as an absent one. Each such route needs a role, declared
 * once here (reads: `viewer`, anything else: `owner`, unless the route's `config.role` says
 * otherwise) and published as the operation's `x-role` in the OpenAPI document. A viewer's request
 * to an owner's operation is `403 role_not_allowed` in the request's first step, with the session,
 * before its body is read. Handlers take the merchant from `ownedMerchantOf(req)` and have no
 * other way to name one.
 */
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import type { MemberRole } from '../db/tables/cabinet.js';
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
  interface FastifyContextConfig {
    /** Cabinet: the role a `:merchant_id` route needs when it is not the default of its method. */
    role?: MemberRole;
  }
}

export const merchantNotFound = (id: string) => new AppError('merchant_not_found', `Merchant ${id} does not exist`);

const READS = new Set(['GET', 'HEAD']);
const RANK: Record<MemberRole, number> = { viewer: 0, owner: 1 };

/** The role a route of `method` needs: reads are a viewer's, everything else an owner's. */
export function requiredRole(method: string | string[], declared: MemberRole | undefined): MemberRole {
  const methods = Array.isArray(method) ? method : [method];
  return declared ?? (methods.every((m) => READS.has(m)) ? 'viewer' : 'owner');
}

export const roleNotAllowed = () =>
  new AppError('role_not_allowed', 'Your access to this merchant is read-only: an owner of the merchant can do this');

/** Registers the hooks on every route added after it whose path names a merchant. */
export function resolveOwnedMerchants(app: ApiServer, db: Db): void {
  app.decorateRequest('ownedMerchant', null);
  app.addHook('onRoute', (route) => {
    if (!route.url.includes(':merchant_id')) return;
    const role = requiredRole(route.method, (route.config as { role?: MemberRole } | undefined)?.role);
    if (route.schema) (route.schema as Record<string, unknown>)['x-role'] = role;
    // First step after the session is known: the holding and its role, before the body is read.
    const hold = async (req: FastifyRequest) => {
      const id = (req.params as { merchant_id?: unknown }).merchant_id;
      const held = typeof id === 'string' ? await ownedMerchant(db, sessionOf(req).owner.id, id) : undefined;
      if (!held) return; // Answered after validation, as an absent merchant (below).
      const { role: holds, ...merchant } = held;
      if (RANK[holds] < RANK[role]) throw roleNotAllowed();
      req.ownedMerchant = merchant;
    };
    const found = async (req: FastifyRequest) => {
      if (!req.ownedMerchant) throw merchantNotFound((req.params as { merchant_id: string }).merchant_id);
    };
    route.onRequest = [...toList(route.onRequest), hold];
    route.preHandler = [found, ...toList(route.preHandler)];
  });
}

function toList<T>(hook: T | T[] | undefined): T[] {
  if (hook === undefined) return [];
  return Array.isArray(hook) ? hook : [hook];
}

/** The owned merchant of a merchant route (the hook has set it; anything else is a bug). */
export function ownedMerchantOf(req: FastifyRequest): MerchantRow {
  if (!req.ownedMerchant) throw new Error(`${req.routeOptions.url} has no owned merchant: the hook did not run`);
  return req.ownedMerchant;
}
