/**
 * Webhook test parts: a real HTTP receiver on loopback whose answers the test scripts, and a
 * migrated SQLite file with a merchant, a ManualClock near the real time (the standardwebhooks
 * verifier checks webhook-timestamp against the real clock) and a held worker lease.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createMerchant } from '../../src/merchants/service.js';
import { WebhookDispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.js';
import { setEndpoint, type EndpointView } from '../../src/webhooks/endpoints.js';
import { recordEvent } from '../../src/webhooks/outbox.js';
import { WorkerLease } from '../../src/runtime/lease.js';
import { tempDir } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; created_at: string; data: any };
  /** The status this receiver answered. */
  status: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Requests answered 2xx, in arrival order. */
  accepted(): Received[];
  answer: (r: Omit<Received, 'status'>) => Answer | Promise<Answer>;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 204 })): Promise<Receiver> {
  const received: Received[] = [];
  const r: Receiver = {
    url: '',
    port: 0,
    received,
    accepted: () => received.filter((x) => x.status >= 200 && x.status < 300),
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const got = { headers: req.headers, body, json: JSON.parse(body) };
      const a = await r.answer(got);
      received.push({ ...got, status: a.status });
      res.writeHead(a.status, a.headers ?? {});
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/hooks`;
  return r;
}

export const silent = pino({ level: 'silent' });

export interface WebhookDb {
  database: Database & { url: string };
  db: Database['db'];
  clock: ManualClock;
  lease: WorkerLease;
  merchant(): Promise<string>;
  endpoint(
    merchantId: string,
    url: string,
    opts?: { allowPrivate?: boolean; rotateSecret?: boolean },
  ): Promise<EndpointView>;
  /** An event as the flows emit it (recordEvent in its own transaction). */
  emit(merchantId: string, type: string, data?: unknown): Promise<string>;
  dispatcher(opts?: DispatcherOptions): WebhookDispatcher;
  close(): Promise<void>;
}

export async function openWebhookDb(): Promise<WebhookDb> {
  const dir = tempDir('paygate-webhooks-');
  const database = await openTestDatabase(path.join(dir, 'paygate.db'));
  await migrateToLatest(database.db);
  const db = database.db;
  const clock = new ManualClock(new Date());
  // A lease that outlives the days the tests move the clock by.
  const lease = new WorkerLease(db, clock, { ttlMs: 3_650 * 86_400_000 });
  await lease.acquireOrRenew();
  let n = 0;
  return {
    database,
    db,
    clock,
    lease,
    merchant: async () => (await createMerchant(db, clock, 'test', { name: `Shop ${++n}` })).merchant_id,
    endpoint: (merchantId, url, opts = {}) =>
      setEndpoint(db, clock, 'test', merchantId, {
        url,
        allowPrivate: opts.allowPrivate ?? true,
        rotateSecret: opts.rotateSecret ?? false,
      }),
    async emit(merchantId, type, data = { n: ++n }) {
      const e = await db.transaction().execute((trx) =>
        recordEvent(trx, clock, {
          merchantId,
          type,
          subjectId: `s-${n}`,
          data,
          key: `test:${merchantId}:${n}:${Math.random()}`,
        }),
      );
      return e.id;
    },
    dispatcher: (opts = {}) =>
      new WebhookDispatcher(lease.fenced(db), clock, lease, silent, { random: () => 0.5, ...opts }),
    close: () => database.close(),
  };
}

export async function deliveryOf(db: Database['db'], eventId: string) {
  return db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow();
}

/** Receivers a test file starts, all closed by `closeAll` in its afterAll. */
export function receiverPool(): { start: typeof startReceiver; closeAll: () => Promise<void> } {
  const started: Receiver[] = [];
  return {
    async start(...a) {
      const r = await startReceiver(...a);
      started.push(r);
      return r;
    },
    async closeAll() {
      await Promise.all(started.map((r) => r.close()));
    },
  };
}

/**
 * A test file's webhook database and receivers: opened before its tests (`set` receives the
 * database), closed after them; returns the receiver starter.
 */
export function webhookSuite(set: (w: WebhookDb) => void): typeof startReceiver {
  const receivers = receiverPool();
  let w: WebhookDb | null = null;
  beforeAll(async () => {
    w = await openWebhookDb();
    set(w);
  });
  afterAll(async () => {
    await receivers.closeAll();
    await w?.close();
  });
  return receivers.start;
}
