/** pino with redaction: secrets (API keys, passphrases, mnemonics, webhook secrets) never reach logs. */
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

export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  const opts = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  return destination ? pino(opts, destination as pino.DestinationStream) : pino(opts);
}
