/**
 * TOTP secrets at rest: sealed with AES-256-GCM under a key derived (HKDF-SHA256) from the
 * cabinet's secret, CABINET_TOTP_KEY, which lives in the configuration and never in the database:
 * a copy of the database alone neither shows a secret nor lets anyone mint codes. The owner's id is
 * the additional data, so a sealed secret copied onto another account does not open there.
 * Stored form: `s1.<key id>.<iv>.<ciphertext+tag>` (base64url); the key id (a digest of the key)
 * tells a changed or missing key apart from a damaged value. A base32 value is a secret written
 * before sealing (base32 has no dot): it is read as it is, and sealed by `sealLegacySecrets`.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { AppError } from '../errors.js';

const PREFIX = 's1';

export class SecretBox {
  private readonly key: Buffer;
  readonly keyId: string;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'paygate', 'cabinet totp secrets v1', 32));
    this.keyId = createHash('sha256').update(this.key).digest('base64url').slice(0, 8);
  }

  seal(ownerId: string, plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(ownerId));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [PREFIX, this.keyId, iv.toString('base64url'), body.toString('base64url')].join('.');
  }

  /** The secret of a stored value; throws `secondFactorUnavailable` when this key cannot open it. */
  open(ownerId: string, stored: string): string {
    if (!isSealed(stored)) return stored;
    const [, keyId, iv, body] = stored.split('.');
    if (keyId !== this.keyId || !iv || !body) throw secondFactorUnavailable();
    try {
      const raw = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(ownerId));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      throw secondFactorUnavailable();
    }
  }
}

export const isSealed = (stored: string): boolean => stored.startsWith(`${PREFIX}.`);

/**
 * The server cannot read the account's TOTP secret (CABINET_TOTP_KEY missing or not the key it was
 * sealed with): the code is not checked, so it is not called wrong.
 */
export const secondFactorUnavailable = () =>
  new AppError(
    'service_unavailable',
    'The second factor cannot be checked on this server right now (the operator is told); try again later',
  );

/** A box for the configured key, or null without one. */
export const secretBox = (key: string | null): SecretBox | null => (key === null ? null : new SecretBox(key));

/** Opens `stored` with `box`; a sealed value without a box cannot be opened. */
export function openSecret(box: SecretBox | null, ownerId: string, stored: string): string {
  if (box) return box.open(ownerId, stored);
  if (isSealed(stored)) throw secondFactorUnavailable();
  return stored;
}
