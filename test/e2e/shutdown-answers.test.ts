/**
 * Shutdown, as in a rolling restart: a response still in flight when it begins closes its
 * connection (so a client's connection pool cannot hold the shutdown), and a request that reaches
 * the server meanwhile is refused in the spec's shape: 503 service_unavailable with the error body,
 * X-Request-Id, the rate headers and Retry-After.
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

/** An app with `/v1/slow`, which answers once `release` is called; `entered` when it is called. */
async function appWithSlowRoute() {
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
  return { t, key, socket, closed, entered, release: () => release(), raw: () => raw };
}

describe('shutdown', () => {
  it('answers a request in flight with Connection: close and ends its connection, so a client keeping it cannot hold the shutdown', async () => {
    const s = await appWithSlowRoute();
    try {
      s.socket.write(`GET /v1/slow HTTP/1.1\r\nHost: a\r\nX-Api-Key: ${s.key}\r\n\r\n`);
      await s.entered;
      // The orchestrator's SIGTERM while the request is in flight; the client never closes its side.
      const stopping = s.t.app.stop();
      while (s.t.app.http.server.listening) await new Promise((r) => setTimeout(r, 5));
      s.release();
      await s.closed;
      // Resolves only once every connection has ended: a kept-alive one would hold it for good.
      await stopping;
    } finally {
      s.release();
      s.socket.destroy();
      await s.t.close();
    }
    const [answer, extra] = responses(s.raw());
    expect(answer?.status).toBe(200);
    expect(answer!.headers['connection']).toBe('close');
    expect(extra).toBeUndefined();
  });

  it('refuses a request that reaches the server meanwhile with 503 service_unavailable in the error shape, with the request id and the headers of every response', async () => {
    const s = await appWithSlowRoute();
    try {
      s.socket.write(`GET /v1/slow HTTP/1.1\r\nHost: a\r\nX-Api-Key: ${s.key}\r\n\r\n`);
      await s.entered;
      // A second client has sent part of its request when the shutdown begins; the rest comes after.
      const late = net.connect(Number(new URL(s.t.url).port), '127.0.0.1');
      let lateRaw = '';
      late.on('data', (d) => (lateRaw += d));
      const lateClosed = new Promise((r) => late.on('close', r));
      await new Promise((r) => late.on('connect', r));
      late.write(`GET /v1/probe/7d3f1e2a-4b5c-4d6e-8f70-1a2b3c4d5e6f HTTP/1.1\r\nHost: a\r\n`);
      await new Promise((r) => setTimeout(r, 100));
      const stopping = s.t.app.stop();
      // The listener closes after fastify's preClose: from then on the server is shutting down.
      while (s.t.app.http.server.listening) await new Promise((r) => setTimeout(r, 5));
      late.write(`X-Api-Key: ${s.key}\r\nX-Request-Id: late-1\r\n\r\n`);
      await lateClosed;
      s.release();
      await stopping;
      const [answer] = responses(lateRaw);
      expect(answer, lateRaw).toBeDefined();
      expect(answer!.status).toBe(503);
      const body = JSON.parse(answer!.body);
      expect(isErrorBody(body), answer!.body).toBe(true);
      expect(body.error.code).toBe('service_unavailable');
      expect(answer!.headers['x-request-id']).toBe('late-1');
      expect(answer!.headers['retry-after']).toMatch(/^\d+$/);
      expect(answer!.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
      expect(answer!.headers['connection']).toBe('close');
    } finally {
      s.release();
      s.socket.destroy();
      await s.t.close();
    }
  });
});
