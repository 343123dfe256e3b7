/**
 * Fault injection for the node API (never the control API): `{"Error"}` answers, HTTP 5xx, hangs
 * (no answer until the client gives up), added latency, SERVER_BUSY broadcasts, lost answers
 * (the node does the work, then the answer is replaced by a 502, as when a proxy drops it) and
 * `{}` (not found, as a backend behind a load balancer that lags answers a lookup), and answers
 * with a field left out wherever it appears (`omit_field`: a broken or lying node). A
 * fault matches paths by prefix and can be limited to its next `times` requests.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';

const FAULT_KINDS = ['error', 'http', 'hang', 'latency', 'busy', 'lost_answer', 'not_found', 'omit_field'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  kind: FaultKind;
  /** Path prefix, e.g. `/wallet/getnowblock` or `/walletsolidity`; default: every node path. */
  path?: string;
  /** Answer this many requests, then retire; default: until cleared. */
  times?: number;
  /** `error`: the text of `{"Error": …}`. */
  message?: string;
  /** `http`: the status (default 503). */
  status?: number;
  /** `latency`: added delay before the normal answer. */
  ms?: number;
  /** `omit_field`: the JSON key removed from the answer at every depth (e.g. `blockID`, `timestamp`). */
  field?: string;
}

export interface Fault extends FaultSpec {
  id: number;
  hits: number;
}

/** The answer (text, bytes or a stream of bytes, as the routes send them) without `field` at any depth. */
async function omitField(reply: FastifyReply, payload: unknown, field: string): Promise<unknown> {
  const text =
    typeof payload === 'string'
      ? payload
      : Buffer.isBuffer(payload)
        ? payload.toString('utf8')
        : payload instanceof Readable
          ? Buffer.concat((await payload.toArray()) as Buffer[]).toString('utf8')
          : null;
  if (text === null) return payload;
  // A route that streams its answer gave its length: the shorter answer has another.
  void reply.removeHeader('content-length');
  return JSON.stringify(JSON.parse(text), (key, value: unknown) => (key === field ? undefined : value));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class FaultInjector {
  private faults: Fault[] = [];
  private nextId = 1;
  /** Requests held open by `hang`, released (destroyed) on close. */
  private readonly hanging = new Set<FastifyRequest>();
  /** Requests processed normally whose answer `lost_answer` replaces. */
  private readonly losing = new WeakSet<FastifyRequest>();
  /** Requests processed normally whose answer `omit_field` strips of a field. */
  private readonly omitting = new WeakMap<FastifyRequest, string>();

  add(spec: FaultSpec): Fault {
    if (!(FAULT_KINDS as readonly string[]).includes(spec.kind))
      throw new Error(`unknown fault kind ${String(spec.kind)}`);
    const fault: Fault = { ...spec, id: this.nextId++, hits: 0 };
    this.faults.push(fault);
    return fault;
  }

  clear(id?: number): void {
    this.faults = id === undefined ? [] : this.faults.filter((f) => f.id !== id);
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  /** Takes the first live fault matching the path (and counts it). */
  private take(path: string): Fault | undefined {
    const f = this.faults.find(
      (x) => path.startsWith(x.path ?? '/wallet') && (x.kind !== 'busy' || path.endsWith('/broadcasttransaction')),
    );
    if (!f) return undefined;
    f.hits += 1;
    if (f.times !== undefined && f.hits >= f.times) this.faults = this.faults.filter((x) => x !== f);
    return f;
  }

  /** fastify onRequest hook; answers the request itself when a fault applies. */
  async apply(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const path = req.url.split('?')[0] ?? '';
    if (!path.startsWith('/wallet')) return;
    const f = this.take(path);
    if (!f) return;
    switch (f.kind) {
      case 'latency':
        await sleep(f.ms ?? 1_000);
        return;
      case 'error':
        await reply
          .code(200)
          .send({ Error: f.message ?? 'class java.lang.IllegalStateException : devnet injected error' });
        return;
      case 'http':
        await reply
          .code(f.status ?? 503)
          .type('text/html')
          .send(`<html><body>HTTP ${f.status ?? 503}: devnet injected failure</body></html>`);
        return;
      case 'busy':
        await reply.code(200).send({ code: 'SERVER_BUSY', message: Buffer.from('Server busy').toString('hex') });
        return;
      case 'not_found':
        // java-tron's answer for a txid (or block) it does not know, as a lagging backend gives it.
        await reply.code(200).send({});
        return;
      case 'lost_answer':
        this.losing.add(req);
        return;
      case 'omit_field':
        this.omitting.set(req, f.field ?? 'blockID');
        return;
      case 'hang':
        reply.hijack();
        this.hanging.add(req);
        req.raw.once('close', () => this.hanging.delete(req));
        return;
    }
  }

  /** fastify onSend hook: the work is done, the answer is lost on the way back or loses a field. */
  async loseAnswer(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const field = this.omitting.get(req);
    if (field !== undefined) return omitField(reply, payload, field);
    if (!this.losing.has(req)) return payload;
    this.losing.delete(req);
    void reply.code(502).type('text/html');
    return '<html><body>HTTP 502: devnet lost the answer</body></html>';
  }

  releaseHanging(): void {
    for (const req of this.hanging) req.raw.socket?.destroy();
    this.hanging.clear();
  }
}
