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
  return { stream, lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}

describe('logging', () => {
  it('redacts secrets wherever they appear in a log object', () => {
    const c = capture();
    const log = createLogger('info', c.stream);
    log.info({ api_key: 'sk_x', secret: 's', nested: { mnemonic: 'abandon', passphrase: 'p', privateKey: 'k' }, req: { headers: { 'x-api-key': 'sk_y' } } }, 'hello');
    const text = JSON.stringify(c.lines());
    for (const s of ['sk_x', '"s"', 'abandon', '"p"', '"k"', 'sk_y']) expect(text).not.toContain(s);
    expect(text).toContain('[redacted]');
  });

  it('logs a 500 with its request id and without the API key, at debug level too', async () => {
    const c = capture();
    const t = await startTestApp({ workers: false, extraRoutes: probeRoutes, logger: createLogger('debug', c.stream), env: { LOG_LEVEL: 'debug' } });
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
