/**
 * pino with redaction: secrets (API keys, passphrases, mnemonics, private and extended keys,
 * webhook secrets) never reach logs, at any depth. Two layers: fast-redact paths for the known
 * shapes (request headers), and a formatter that walks every log object and child binding and
 * replaces any value under a secret-sounding key, or any string that looks like an API key or an
 * extended key, whatever the nesting.
 */
import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'apiKey',
  'api_key',
  'secret',
  'passphrase',
  'mnemonic',
  'privateKey',
  'walletPassphrase',
  'tronApiKey',
  '*.walletPassphrase',
  '*.tronApiKey',
  '*.apiKey',
  '*.api_key',
  '*.secret',
  '*.secret_hash',
  '*.passphrase',
  '*.mnemonic',
  '*.privateKey',
  '*.private_key',
];

export const CENSOR = '[redacted]';

/** Key names (lower case, without `_` and `-`) containing one of these never show their value. */
const SECRET_KEY_PARTS = [
  'secret',
  'passphrase',
  'password',
  'mnemonic',
  'privatekey',
  'privkey',
  'xprv',
  'xpub',
  'apikey',
  'seed',
  'authorization',
  'cookie',
  'signingkey',
];
/**
 * Values that are secrets whatever their key: an API key, an extended key (xprv/xpub/tprv/tpub),
 * a webhook signing secret (`whsec_` + base64: whoever reads it can forge webhooks to a merchant),
 * an operator token (`op_<id>_<secret>`: whoever reads it runs the console).
 */
const SECRET_VALUES = [
  /sk_[0-9a-f]{16}_[A-Za-z0-9_-]{20,}/g,
  /\b[xt](prv|pub)[1-9A-HJ-NP-Za-km-z]{100,}/g,
  /whsec_[A-Za-z0-9+/]{16,}={0,2}/g,
  /\bop_[0-9a-f]{16}_[A-Za-z0-9_-]{20,}/g,
];
const MAX_DEPTH = 32;

function secretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_]/g, '');
  return SECRET_KEY_PARTS.some((part) => k.includes(part));
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function scrubText(text: string): string {
  return SECRET_VALUES.reduce((t, re) => t.replace(re, CENSOR), text);
}

/** A copy of `value` with every secret replaced (the caller's object is never changed). */
export function scrub(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) {
    seen.add(value);
    const out = value.map((v) => scrub(v, depth + 1, seen));
    seen.delete(value);
    return out;
  }
  if (value instanceof Error) {
    // Errors keep their type for pino's err serializer; their own enumerable fields are scrubbed.
    const copy = Object.create(Object.getPrototypeOf(value)) as Error;
    Object.defineProperties(copy, {
      message: { value: scrub(value.message), enumerable: false },
      stack: { value: scrub(value.stack), enumerable: false },
    });
    seen.add(value);
    for (const [k, v] of Object.entries(value))
      (copy as unknown as Record<string, unknown>)[k] = secretKey(k) ? CENSOR : scrub(v, depth + 1, seen);
    seen.delete(value);
    return copy;
  }
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return value;
  // Class instances (a request, a socket, a Date) go to pino's serializers as they are: the
  // serializers pick their fields and the redact paths cover what those can carry.
  if (!isPlain(value)) return value;
  seen.add(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = secretKey(k) ? CENSOR : scrub(v, depth + 1, seen);
  seen.delete(value);
  return out;
}

export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  const opts: pino.LoggerOptions = {
    level,
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    formatters: {
      log: (obj) => scrub(obj) as Record<string, unknown>,
      bindings: (bindings) => scrub(bindings) as pino.Bindings,
    },
    // The message text too (`log.info('key %s', k)` or a string built by hand).
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? scrubText(a) : a)) as Parameters<typeof method>);
      },
    },
  };
  return destination ? pino(opts, destination as pino.DestinationStream) : pino(opts);
}
