/**
 * The requests a listener has accepted and not yet answered, with the last step each has passed:
 * a shutdown that outlasts SHUTDOWN_TIMEOUT names them in its log line, so the operator (and the
 * team) learn which route held it and where, instead of only that the listener did not close.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface RequestInFlight {
  /** The listener that accepted it (api, cabinet). */
  listener: string;
  request_id: string;
  method: string;
  url: string;
  /** The last fastify step the request has entered (onRequest, preHandler, onSend). */
  step: string;
  ms: number;
}

const tracked = new WeakMap<object, Map<FastifyRequest, { step: string; at: number }>>();

/**
 * Registers the hooks; call before any other hook so `onRequest` is recorded first. Callback
 * hooks, so tracking costs no promise per request; the response's `close` (sent or cut off) or
 * its connection's removes the request whatever happened to it.
 */
export function trackRequestsInFlight(app: FastifyInstance): void {
  const open = new Map<FastifyRequest, { step: string; at: number }>();
  tracked.set(app, open);
  const passed = (req: FastifyRequest, step: string) => {
    const r = open.get(req);
    if (r) r.step = step;
  };
  app.addHook('onRequest', (req, reply, done) => {
    open.set(req, { step: 'onRequest', at: Date.now() });
    // A pipelined response still waiting behind another emits no `close` when the connection
    // ends; the socket's `close` removes it then.
    const socket = req.raw.socket;
    const end = () => {
      open.delete(req);
      reply.raw.off('close', end);
      socket.off('close', end);
    };
    reply.raw.once('close', end);
    socket.once('close', end);
    done();
  });
  app.addHook('preHandler', (req, _reply, done) => {
    passed(req, 'preHandler');
    done();
  });
  app.addHook('onSend', (req, _reply, payload, done) => {
    passed(req, 'onSend');
    done(null, payload);
  });
}

/** The requests in flight on `app`, labelled `listener`, oldest first (none when never tracked). */
export function requestsInFlight(app: FastifyInstance, listener: string): RequestInFlight[] {
  const open = tracked.get(app);
  if (!open) return [];
  const now = Date.now();
  return [...open]
    .map(([req, r]) => ({
      listener,
      request_id: String(req.id),
      method: req.method,
      url: req.url,
      step: r.step,
      ms: now - r.at,
    }))
    .sort((a, b) => b.ms - a.ms);
}
