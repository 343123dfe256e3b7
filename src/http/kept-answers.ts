/**
 * GET routes whose answers are kept serialized until their rows change (db/view-cache.ts). A kept
 * answer is sent as it is, without a promise, a database read, a view or the serializer.
 */
import type { FastifyReply } from 'fastify';
import type { ViewCache } from '../db/view-cache.js';

/** fastify's own content type for a JSON answer: a kept answer goes out with the same headers. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers `key` of `owner` from `cache`, or from `read()` (which throws for a missing or foreign
 * object), keeping the answer when nothing changed while it was read. A handler's result: undefined
 * when answered at once (fastify takes it as "already sent"), else a promise of the reply, typed
 * `never` so that it fits any route's declared answer.
 */
export function answerKept<V>(reply: FastifyReply, cache: ViewCache | undefined, owner: string, key: string, read: () => Promise<V>): Promise<never> | undefined {
  const kept = cache?.lookup(key, owner);
  if (kept !== undefined) {
    void reply.type(JSON_TYPE).send(kept);
    return undefined;
  }
  return readAndKeep(reply, cache, owner, key, read) as Promise<never>;
}

async function readAndKeep<V>(reply: FastifyReply, cache: ViewCache | undefined, owner: string, key: string, read: () => Promise<V>): Promise<FastifyReply> {
  const token = cache?.begin(key) ?? null;
  // The route's own serializer (its 200 schema): a kept answer is byte for byte the one fastify sends.
  const body = reply.serialize(await read()) as string;
  cache?.fill(token, key, owner, body);
  return reply.type(JSON_TYPE).send(body);
}
