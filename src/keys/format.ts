/**
 * API key shape: `sk_<16 hex>_<43 base64url>`. The first part is the public key identifier
 * (`key_id`), the second the secret (32 random bytes). Only an argon2id hash of the secret is kept.
 */
import { randomBytes } from 'node:crypto';

const KEY_SHAPE = /^sk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface ParsedKey {
  keyId: string;
  secret: string;
}

export function parseApiKey(text: string | undefined): ParsedKey | null {
  if (typeof text !== 'string') return null;
  const m = KEY_SHAPE.exec(text);
  return m ? { keyId: m[1] as string, secret: m[2] as string } : null;
}

export function generateApiKey(): ParsedKey & { apiKey: string } {
  const keyId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { keyId, secret, apiKey: `sk_${keyId}_${secret}` };
}

/** The key id of a key that already passed parseApiKey (the 16 hex characters after `sk_`). */
export function keyIdOf(apiKey: string): string {
  return apiKey.slice(3, 19);
}

export function isKeyId(text: string): boolean {
  return /^[0-9a-f]{16}$/.test(text);
}
