/**
 * A request that reaches the server while it shuts down (a keep-alive connection busy with a
 * request in flight, as in a rolling restart) is refused in the spec's shape: 503
 * service_unavailable with the error body, X-Request-Id, the rate headers and Retry-After.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { isErrorBody } from '../helpers/http.js';
import { startTestApp } from '../helpers/app.js';
import { probeRoutes } from '../helpers/probe-routes.js';

/** The responses in `raw` (HTTP/1.1 with Content-Length), in order. */
function responses(raw: string): Array<{ status: number; headers: Record<string, string>; body: string }> {
  const out: Array<{ status: number; headers: Record<string, string>; body: string }> = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const lines = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines.slice(1))
      headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
    const length = Number(headers['content-length'] ?? 0);
    out.push({ status: Number(lines[0]!.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

describe('a request arriving during shutdown', () => {
  it('gets 503 service_unavailable in the error shape, with the request id and the headers of every response', async () => {
    let enter!: () => void;
    let release!: () => void;
    const entered = new Promise<void>((r) => (enter = r));
    const gate = new Promise<void>((r) => (release = r));
    const t = await startTestApp({
      extraRoutes: async (app) => {
        await probeRoutes(app);
        app.get('/v1/slow', async () => {
          enter();
          await gate;
          return { ok: true };
        });
      },
    });
    const { key } = await t.merchant();
    const u = new URL(t.url);
    const socket = net.connect(Number(u.port), u.hostname);
    let raw = '';
    socket.on('data', (d) => (raw += d));
    const closed = new Promise((r) => socket.on('close', r));
    try {
      socket.write(`GET /v1/slow HTTP/1.1\r\nHost: a\r\nX-Api-Key: ${key}\r\n\r\n`);
      await entered;
      // The orchestrator's SIGTERM: the server stops while the connection is busy.
      const stopping = t.app.stop();
      // The listener closes after fastify's preClose: from then on the server is shutting down.
      while (t.app.http.server.listening) await new Promise((r) => setTimeout(r, 5));
      socket.write(
        `GET /v1/probe/7d3f1e2a-4b5c-4d6e-8f70-1a2b3c4d5e6f HTTP/1.1\r\nHost: a\r\nX-Api-Key: ${key}\r\nX-Request-Id: late-1\r\n\r\n`,
      );
      await new Promise((r) => setTimeout(r, 100));
      release();
      await Promise.race([closed, new Promise((r) => setTimeout(r, 5_000))]);
      await stopping;
    } finally {
      release();
      socket.destroy();
      await t.close();
    }
    const [first, late] = responses(raw);
    expect(first?.status).toBe(200);
    expect(late, raw).toBeDefined();
    expect(late!.status).toBe(503);
    const body = JSON.parse(late!.body);
    expect(isErrorBody(body), late!.body).toBe(true);
    expect(body.error.code).toBe('service_unavailable');
    expect(late!.headers['x-request-id']).toBe('late-1');
    expect(late!.headers['retry-after']).toMatch(/^\d+$/);
    expect(late!.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
  });
});
