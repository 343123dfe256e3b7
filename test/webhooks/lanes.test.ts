/**
 * The dispatcher's worker loop under a backlog (dispatcher.ts: lanes and group commit): a busy
 * merchant's events arrive in order and once each, a retried head stops its lane, a lane gives
 * its slot back after LANE_RUN deliveries so another merchant is not starved, and no more than
 * `concurrency` deliveries (one per merchant) are in flight at once.
 */
import { describe, expect, it, vi } from 'vitest';
import { LANE_RUN } from '../../src/webhooks/dispatcher.js';
import { attemptsOf, nextDueQuery } from '../../src/webhooks/store.js';
import { deliveryOf, webhookSuite, type WebhookDb } from './fixture.js';
import { ON_POSTGRES } from '../helpers/database.js';

let w: WebhookDb;
const receiver = webhookSuite((opened) => (w = opened));

async function emitMany(merchantId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await w.emit(merchantId, 'invoice.seen', { n: i }));
  return ids;
}

/**
 * Runs the worker loop as serve's worker host does until `done`, then stops it: a tick that ends
 * (nothing in flight) or fails (a database error) is followed by another, as in serve, so a test
 * waits for what merchants see, not for one tick. Failed ticks are named if `done` never holds.
 */
async function runWorker(done: () => void | Promise<void>, opts: { concurrency?: number } = {}): Promise<void> {
  const stop = new AbortController();
  const worker = w.dispatcher({ pollMs: 20, ...opts }).worker();
  const failures: unknown[] = [];
  const ticking = (async () => {
    while (!stop.signal.aborted) {
      await worker.tick(stop.signal).catch((err: unknown) => failures.push(err));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    await vi.waitFor(done, { timeout: 20_000, interval: 20 });
  } catch (err) {
    throw new Error(`${String(err)}; failed ticks: ${failures.map(String).join('; ') || 'none'}`);
  } finally {
    stop.abort();
    await ticking;
  }
}

describe('the dispatcher worker with a backlog', () => {
  it("delivers each merchant's backlog in order, every event once, one attempt each", async () => {
    const merchants = [await w.merchant(), await w.merchant(), await w.merchant()];
    const rs = await Promise.all(merchants.map(() => receiver()));
    const ids: string[][] = [];
    for (const [i, m] of merchants.entries()) {
      await w.endpoint(m, rs[i]!.url);
      ids.push(await emitMany(m, 2 * LANE_RUN + 5));
    }
    // Done once every last event is recorded, not only received: the worker stopped between the
    // receiver's answer and its record aborts that attempt (at least once: it is sent again).
    await runWorker(async () => {
      for (const [i, r] of rs.entries()) expect(r.accepted()).toHaveLength(ids[i]!.length);
      for (const list of ids) expect((await deliveryOf(w.db, list.at(-1)!)).status).toBe('delivered');
    });
    for (const [i, r] of rs.entries()) {
      expect(r.received.map((x) => x.json.id)).toEqual(ids[i]);
      expect(r.received.map((x) => x.json.data.n)).toEqual(ids[i]!.map((_, k) => k));
    }
    for (const id of [ids[0]![0]!, ids[1]![LANE_RUN]!, ids[2]!.at(-1)!]) {
      const d = await deliveryOf(w.db, id);
      expect(d.status).toBe('delivered');
      expect(d.claimed_by).toBeNull();
      expect(await attemptsOf(w.db, d.id)).toHaveLength(1);
    }
  });

  it('stops a lane at a retried head: the later events wait for its retry, then follow in order', async () => {
    let failOnce = true;
    const m = await w.merchant();
    let ids: string[] = [];
    const r = await receiver((got) => {
      if (got.json.id === ids[3] && failOnce) {
        failOnce = false;
        return { status: 503 };
      }
      return { status: 204 };
    });
    await w.endpoint(m, r.url);
    ids = await emitMany(m, 8);
    await runWorker(async () => {
      expect(r.received).toHaveLength(4);
      expect((await deliveryOf(w.db, ids[3]!)).attempts).toBe(1);
    });
    // Nothing after the retrying head was tried.
    expect(r.received.map((x) => x.json.id)).toEqual(ids.slice(0, 4));
    expect((await deliveryOf(w.db, ids[4]!)).attempts).toBe(0);
    w.clock.advance(3_600_000);
    await runWorker(() => expect(r.accepted()).toHaveLength(8));
    expect(r.accepted().map((x) => x.json.id)).toEqual(ids);
  });

  it('gives the slot back after LANE_RUN deliveries: with one slot, a second merchant is served before the first is done', async () => {
    const a = await w.merchant();
    const b = await w.merchant();
    const order: string[] = [];
    const ra = await receiver(() => (order.push('a'), { status: 204 }));
    const rb = await receiver(() => (order.push('b'), { status: 204 }));
    await w.endpoint(a, ra.url);
    await w.endpoint(b, rb.url);
    // B's events fall among A's: a lane that ran on would hold B back until A's backlog is done.
    await emitMany(a, LANE_RUN);
    w.clock.advance(1_000);
    await emitMany(b, 3);
    w.clock.advance(1_000);
    await emitMany(a, 2 * LANE_RUN);
    await runWorker(() => expect(order).toHaveLength(3 * LANE_RUN + 3), { concurrency: 1 });
    expect(order.join('')).toBe(`${'a'.repeat(LANE_RUN)}bbb${'a'.repeat(2 * LANE_RUN)}`);
  });

  it('runs at most `concurrency` deliveries at once, never two of one merchant, each merchant in order', async () => {
    const merchants = [await w.merchant(), await w.merchant(), await w.merchant(), await w.merchant()];
    let running = 0;
    let most = 0;
    const perMerchant = new Map<string, number>();
    let mostOfOne = 0;
    const rs = await Promise.all(
      merchants.map((m) =>
        receiver(async () => {
          const mine = (perMerchant.get(m) ?? 0) + 1;
          perMerchant.set(m, mine);
          mostOfOne = Math.max(mostOfOne, mine);
          most = Math.max(most, ++running);
          await new Promise((r) => setTimeout(r, 5));
          running -= 1;
          perMerchant.set(m, mine - 1);
          return { status: 204 };
        }),
      ),
    );
    const ids: string[][] = [];
    for (const [i, m] of merchants.entries()) {
      await w.endpoint(m, rs[i]!.url);
      ids.push(await emitMany(m, 6));
    }
    await runWorker(
      async () => {
        for (const [i, r] of rs.entries()) expect(r.accepted()).toHaveLength(ids[i]!.length);
        for (const list of ids) expect((await deliveryOf(w.db, list.at(-1)!)).status).toBe('delivered');
      },
      { concurrency: 2 },
    );
    expect(most).toBe(2);
    expect(mostOfOne).toBe(1);
    for (const [i, r] of rs.entries()) expect(r.accepted().map((x) => x.json.id)).toEqual(ids[i]);
  });

  // SQLite's query plan (EXPLAIN QUERY PLAN); PostgreSQL plans from statistics of its own.
  it.skipIf(ON_POSTGRES)(
    "takes a lane's next delivery through the pending index, without scanning the deliveries",
    () => {
      const q = nextDueQuery(w.db, { merchantId: 'm', now: new Date().toISOString(), grant: 'h#1' }).compile(w.db);
      const plan = (
        w.database.sqlite!.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as {
          detail: string;
        }[]
      ).map((r) => r.detail);
      expect(plan.filter((d) => d.startsWith('SCAN'))).toEqual([]);
      expect(plan).toContain('SEARCH d USING INDEX webhook_deliveries_pending (merchant_id=? AND merchant_seq=?)');
    },
  );
});
