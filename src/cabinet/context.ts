/** What cabinet routes share: their dependencies and the signed-in session of a request. */
import type { FastifyRequest } from 'fastify';
import type { HashBudget } from '../keys/hash-budget.js';
import { cabinetUnauthorized } from '../owners/service.js';
import type { Services } from '../services.js';
import type { CabinetSession } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in session; set for every non-public cabinet route before its handler runs. */
    cabinet: CabinetSession | null;
  }
}

export interface CabinetDeps {
  services: Services;
  /** Sign-in attempts per client address per minute (each costs an argon2id verification). */
  loginPerIp: HashBudget;
  /** Sign-in attempts per account (email) per minute, from any address. */
  loginPerAccount: HashBudget;
}

export function sessionOf(req: FastifyRequest): CabinetSession {
  if (!req.cabinet) throw cabinetUnauthorized();
  return req.cabinet;
}

/** The audit log's actor for a change an owner makes. */
export const ownerActor = (session: CabinetSession) => `owner:${session.owner.email}`;
