/** Secrets never reach the logs; failures are logged with the request id. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { api } from '../helpers/http.js';
import { startTestApp } from '../helpers/app.js';
import { probeRoutes } from '../helpers/probe-routes.js';

function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

function log_(c: ReturnType<typeof capture>, write: (log: ReturnType<typeof createLogger>) => void): void {
  write(createLogger('info', c.stream));
}

describe('logging', () => {
  it('redacts secrets wherever they appear in a log object', () => {
    const c = capture();
    const log = createLogger('info', c.stream);
    log.info(
      {
        api_key: 'sk_x',
        secret: 's',
        nested: { mnemonic: 'abandon', passphrase: 'p', privateKey: 'k' },
        req: { headers: { 'x-api-key': 'sk_y' } },
      },
      'hello',
    );
    const text = JSON.stringify(c.lines());
    for (const s of ['sk_x', '"s"', 'abandon', '"p"', '"k"', 'sk_y']) expect(text).not.toContain(s);
    expect(text).toContain('[redacted]');
  });

  it('never prints wallet material or keys at any depth, in arrays, errors, bindings or the message', () => {
    const c = capture();
    const xprv =
      'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LETbbB1zZq5ZDmNNtR9hZtdwLvbeENGiEQ';
    const xpub =
      'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYQLbuc1jb';
    const apiKey = 'sk_0123456789abcdef_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg';
    const secrets = ['legal winner thank', 'p4ssphrase!', 'deadbeef01', xprv, xpub, apiKey, 'whsec_abc', 'hash$argon2'];
    const deep: Record<string, unknown> = { mnemonic: secrets[0] };
    let node = deep;
    for (let i = 0; i < 12; i++) node = (node.next = { level: i }) as Record<string, unknown>;
    Object.assign(node, {
      wallet: { WALLET_PASSPHRASE: secrets[1], keys: [{ private_key: secrets[2] }, { note: `derived from ${xprv}` }] },
      deposit_xpub: xpub,
      headers: [['X-Api-Key', apiKey]],
      webhook: { signingSecret: secrets[6], secret_hash: secrets[7] },
    });
    const err = Object.assign(new Error(`unlock failed for ${apiKey}`), { passphrase: secrets[1] });
    log_(c, (log) => {
      log.info({ deep }, 'hello');
      log.error({ err, list: [[[{ Mnemonic: secrets[0] }]]] }, `wallet ${xpub} failed`);
      log.child({ config: { walletPassphrase: secrets[1], tronApiKey: 'trk' } }).warn('child');
    });
    const text = JSON.stringify(c.lines());
    for (const s of [...secrets, 'trk']) expect(text, s).not.toContain(s);
    expect(text).toContain('[redacted]');
    // What is not a secret still shows, and the caller's objects are untouched.
    expect(text).toContain('"level":11');
    expect(text).toContain('unlock failed for');
    expect((node.wallet as { WALLET_PASSPHRASE: string }).WALLET_PASSPHRASE).toBe(secrets[1]);
  });

  it('logs a 500 with its request id and without the API key, at debug level too', async () => {
    const c = capture();
    const t = await startTestApp({
      workers: false,
      extraRoutes: probeRoutes,
      logger: createLogger('debug', c.stream),
      env: { LOG_LEVEL: 'debug' },
    });
    try {
      const { key } = await t.merchant();
      const r = await api(t.url, '/v1/boom', { key, headers: { 'x-request-id': 'trace-me-1' } });
      expect(r.status).toBe(500);
      const lines = c.lines();
      const failure = lines.find((l) => l.level === 50);
      expect(failure).toBeDefined();
      expect(JSON.stringify(failure)).toContain('trace-me-1');
      expect(JSON.stringify(failure)).toContain('secret internal detail');
      expect(JSON.stringify(lines)).not.toContain(key.slice(20));
    } finally {
      await t.close();
    }
  });
});
