/**
 * The list of requests in flight that a stuck shutdown logs: a request is listed while it runs,
 * with the step it has reached, and never after it ended, whether answered, cut off by its client,
 * or pipelined behind another on a connection that ended before its turn.
 */
import Fastify from 'fastify';
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestsInFlight, trackRequestsInFlight } from '../../src/http/in-flight.js';

let app: ReturnType<typeof Fastify> | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A server whose `/slow` answers once `release` is called. */
async function server() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const a = Fastify();
  trackRequestsInFlight(a);
  a.get('/slow', async () => {
    await gate;
    return { ok: true };
  });
  a.get('/fast', async () => ({ ok: true }));
  await a.listen({ host: '127.0.0.1', port: 0 });
  app = a;
  const port = (a.server.address() as net.AddressInfo).port;
  return { a, port, release: () => release() };
}

describe('requests in flight', () => {
  it('lists a request while its handler runs, with its route and step, and not once answered', async () => {
    const { a, port, release } = await server();
    const answer = fetch(`http://127.0.0.1:${port}/slow`);
    await vi.waitFor(() => expect(requestsInFlight(a, 'api')).toHaveLength(1));
    expect(requestsInFlight(a, 'api')[0]).toMatchObject({
      listener: 'api',
      method: 'GET',
      url: '/slow',
      step: 'preHandler',
    });
    release();
    expect((await answer).status).toBe(200);
    await vi.waitFor(() => expect(requestsInFlight(a, 'api')).toEqual([]));
  });

  it('forgets a request whose client hung up, and requests pipelined behind it', async () => {
    const { a, port } = await server();
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    // Three requests on one connection: the first waits in its handler, the others behind it.
    socket.write('GET /slow HTTP/1.1\r\nHost: a\r\n\r\n' + 'GET /fast HTTP/1.1\r\nHost: a\r\n\r\n'.repeat(2));
    await vi.waitFor(() => expect(requestsInFlight(a, 'api').length).toBeGreaterThanOrEqual(2));
    socket.destroy();
    await vi.waitFor(() => expect(requestsInFlight(a, 'api')).toEqual([]));
  });
});
