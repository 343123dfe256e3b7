/**
 * docs/operations/setup.md ("Logs"): secrets are redacted "in errors, child-logger bindings and the
 * message text". API keys and extended keys were recognised in text; a webhook signing secret
 * (`whsec_…`, the key that lets anyone forge paygate's webhooks to a merchant) was not: written
 * into a message or an error's message, it reached the log in clear.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { generateOperatorToken } from '../../src/operators/format.js';
import { newSecret } from '../../src/webhooks/signing.js';

describe('a webhook secret in log text', () => {
  it('is redacted in the message, in an error message and in a string value under an innocent key', () => {
    const chunks: string[] = [];
    const log = createLogger('trace', new Writable({ write: (c, _e, done) => (chunks.push(String(c)), done()) }));
    const secret = newSecret();
    log.warn(`endpoint re-signed with ${secret}`);
    log.error({ err: new Error(`cannot sign with ${secret}`) }, 'delivery failed');
    log.debug({ detail: `previous=${secret}` }, 'rotation');
    const text = chunks.join('');
    expect(chunks).toHaveLength(3);
    expect(text).not.toContain(secret.slice(6));
    expect(text).toContain('endpoint re-signed with [redacted]');
  });
});

describe('an operator token in log text', () => {
  it('is redacted in the message and in an error message', () => {
    const chunks: string[] = [];
    const log = createLogger('trace', new Writable({ write: (c, _e, done) => (chunks.push(String(c)), done()) }));
    const { token, secret } = generateOperatorToken();
    log.warn(`console call with Bearer ${token}`);
    log.error({ err: new Error(`refused ${token}`) }, 'console');
    const text = chunks.join('');
    expect(chunks).toHaveLength(2);
    expect(text).not.toContain(secret);
    expect(text).toContain('console call with Bearer [redacted]');
  });
});
