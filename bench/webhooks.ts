/**
 * Webhook figures on this machine (real SQLite file, real HTTP receiver on loopback):
 * - the cost recordEvent adds to a state change's transaction, with and without an endpoint;
 * - delivery throughput: events of many merchants delivered by the dispatcher's worker loop
 *   (concurrency 8), signed, each result in its own transaction;
 * - the dispatcher's claim query (oldest due delivery per merchant) with a large backlog of
 *   pending deliveries behind receivers that are down.
 *
 *   npx tsx bench/webhooks.ts [--events 2000] [--merchants 50] [--backlog 50000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { systemClock } from '../src/clock.js';
import { openDatabase, writeTx } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createMerchant } from '../src/merchants/service.js';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.js';
import { setEndpoint } from '../src/webhooks/endpoints.js';
import { recordEvent } from '../src/webhooks/outbox.js';
import { dueHeads } from '../src/webhooks/store.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const EVENTS = arg('events', 2000);
const MERCHANTS = arg('merchants', 50);
const BACKLOG = arg('backlog', 50000);

const dir = mkdtempSync(path.join(tmpdir(), 'paygate-bench-webhooks-'));
const database = openDatabase(path.join(dir, 'bench.db'));
const db = database.db;
const clock = systemClock;
const lease = { grant: 'bench#1', held: () => true, assertHeld: async () => {} };
let received = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(204).end();
  });
});

async function emitMany(merchants: string[], n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const merchantId = merchants[i % merchants.length] as string;
    await writeTx(db, (trx) =>
      recordEvent(trx, clock, {
        merchantId,
        type: 'invoice.seen',
        subjectId: `s${i}`,
        data: { n: i, note: 'x'.repeat(600) },
        key: `b:${merchantId}:${i}:${Math.random()}`,
      }),
    );
  }
  return (performance.now() - t0) / n;
}

async function main() {
  await migrateToLatest(db);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const make = async (n: number) =>
    Promise.all(
      Array.from(
        { length: n },
        async (_, i) => (await createMerchant(db, clock, 'bench', { name: `m${i}` })).merchant_id,
      ),
    );
  console.log(
    `node ${process.version}, ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );

  const without = await make(MERCHANTS);
  const withEndpoint = await make(MERCHANTS);
  for (const m of withEndpoint) await setEndpoint(db, clock, 'bench', m, { url, allowPrivate: true });
  const msNo = await emitMany(without, EVENTS);
  const msYes = await emitMany(withEndpoint, EVENTS);
  console.log(
    `recordEvent in its own transaction: ${msNo.toFixed(3)} ms without an endpoint, ${msYes.toFixed(3)} ms with one (event + delivery)`,
  );

  const d = new WebhookDispatcher(db, clock, lease, pino({ level: 'silent' }), { pollMs: 5 });
  const stop = new AbortController();
  const t0 = performance.now();
  const worker = d.worker();
  while (received < EVENTS) await worker.tick(stop.signal);
  const s = (performance.now() - t0) / 1000;
  console.log(
    `delivered ${EVENTS} events of ${MERCHANTS} merchants in ${s.toFixed(2)} s: ${(EVENTS / s).toFixed(0)} deliveries/s (concurrency 8)`,
  );

  // A backlog: receivers down, every merchant's head retrying later, the rest pending behind it.
  const down = await make(MERCHANTS);
  for (const m of down)
    await setEndpoint(db, clock, 'bench', m, { url: 'http://127.0.0.1:9/never', allowPrivate: true });
  await writeTx(db, async (trx) => {
    for (let i = 0; i < BACKLOG; i++) {
      const merchantId = down[i % down.length] as string;
      await recordEvent(trx, clock, {
        merchantId,
        type: 'payout.queued',
        subjectId: `q${i}`,
        data: { n: i },
        key: `q:${i}`,
      });
    }
  });
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: '2999-01-01T00:00:00.000Z' })
    .where('merchant_id', 'in', down)
    .where('merchant_seq', '=', 1)
    .execute();
  const runs = 20;
  const q0 = performance.now();
  for (let i = 0; i < runs; i++)
    await dueHeads(db, { now: new Date().toISOString(), grant: 'bench#1', limit: 8, exclude: [] });
  console.log(
    `claim query with ${BACKLOG} pending deliveries behind ${MERCHANTS} retrying heads: ${((performance.now() - q0) / runs).toFixed(1)} ms`,
  );
}

main()
  .finally(async () => {
    server.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  })
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
