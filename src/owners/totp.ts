/**
 * The TOTP second factor (RFC 6238 as authenticator apps use it: SHA-1, 6 digits, 30 s steps), by
 * otpauth. A code is accepted one step either side of the clock's (a phone a little off), and the
 * step of the code is returned so the caller can refuse any code of that step or earlier later on.
 */
import { Secret, TOTP } from 'otpauth';

const ISSUER = 'paygate';
const PERIOD = 30;
const WINDOW = 1;

export interface TotpEnrolment {
  /** Base32, for typing into an authenticator app. */
  secret: string;
  /** The `otpauth://totp/…` URI the same secret travels in (what a QR code would carry). */
  otpauth_uri: string;
}

function totp(secret: string, email: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: 6, period: PERIOD, secret });
}

export function newTotpSecret(email: string): TotpEnrolment {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauth_uri: totp(secret, email).toString() };
}

/** The time step of `code` when it is valid at `now`, else null. */
export function totpStep(secret: string, code: string, now: Date): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const t = totp(secret, '');
  const timestamp = now.getTime();
  const delta = t.validate({ token: code, timestamp, window: WINDOW });
  return delta === null ? null : t.counter({ timestamp }) + delta;
}

/** The code of `secret` at `now` (tests, and the demo's narration). */
export function totpCode(secret: string, now: Date): string {
  return totp(secret, '').generate({ timestamp: now.getTime() });
}
