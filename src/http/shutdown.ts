/**
 * What a listener does once its close() begins (docs/adr/0054-connections-at-shutdown.md). Node's
 * close() ends the connections idle at that moment and then waits for the others to end: a
 * response still in flight says `Connection: close` and a connection that falls idle is ended,
 * as Go's Shutdown does. Kept alive, a client's pooled connection would hold close() (and serve's
 * SIGTERM) for as long as the client keeps it. Callback hooks: no promise per request.
 */
import type { FastifyInstance } from 'fastify';

/** Registers the hooks on `app`; the returned function tells whether its close() has begun. */
export function endConnectionsOnClose(app: FastifyInstance): () => boolean {
  // Set when close() begins (fastify runs preClose before it stops the listener).
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (_req, _reply, done) => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
  return () => closing;
}
