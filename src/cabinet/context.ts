/** What cabinet routes share: their dependencies and the signed-in session of a request. */
import type { FastifyRequest } from 'fastify';
import type { SecretBox } from '../owners/secret-box.js';
import { cabinetUnauthorized } from '../owners/service.js';
import type { Services } from '../services.js';
import type { CabinetSession } from './sessions.js';
import type { SignInLimits } from './sign-in-limits.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in session; set for every non-public cabinet route before its handler runs. */
    cabinet: CabinetSession | null;
  }
}

export interface CabinetDeps {
  services: Services;
  /** Sign-in attempts per client address and per account (email), a minute each. */
  signIn: SignInLimits;
  /** The key of the owners' TOTP secrets (CABINET_TOTP_KEY); null when not configured. */
  box: SecretBox | null;
  /** Rows read per page of a CSV export (exports.ts); tests lower it to see many pages. */
  exportPageSize: number;
}

export function sessionOf(req: FastifyRequest): CabinetSession {
  if (!req.cabinet) throw cabinetUnauthorized();
  return req.cabinet;
}

/** The audit log's actor for a change an owner makes. */
export const ownerActor = (session: CabinetSession) => `owner:${session.owner.email}`;
