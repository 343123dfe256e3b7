/**
 * A range fetched ahead while catching up may wait (a node outage, a slow commit) while the chain
 * forks under it and the solid height passes it. Its blocks link to ours, so nothing looks wrong
 * when it is committed; its deposits must still not become final (and be credited) on the strength
 * of a solid height read after the fetch: the next fresh range finds the fork, and the payment the
 * fork dropped is never credited.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readCursor } from '../../src/watcher/store.js';
import { chainWatcher, type ChainWatcher } from '../../src/watcher/watcher.js';
import { mineUnwatched, startChainApp, type ChainTestApp } from './fixture.js';

let t: ChainTestApp;
beforeAll(async () => {
  t = await startChainApp({ watcher: false });
});
afterAll(() => t.close());

/** Blocks, 3 s of the shared clock each (block times follow it). */
const mine = (n: number) => mineUnwatched(t, n);
const catchUp = async (w: ChainWatcher) => {
  while (await w.tick());
};
/** The ranges the watcher fetched ahead, fully answered (private: what this test is about). */
const prefetched = (w: ChainWatcher) =>
  Promise.all((w as unknown as { prefetched: { promise: Promise<unknown> }[] }).prefetched.map((p) => p.promise));

it('never credits a payment from a prefetched range that a fork replaced before it was committed', async () => {
  const shop = await t.shop({ feePercent: '1' });
  const inv = await t.create(shop.key, { amount: '10' });
  const w = chainWatcher(t.app.services, null, { batch: 5, prefetchDepth: 2 });
  mine(1);
  await catchUp(w);
  expect((await readCursor(t.app.services.db))?.next_block).toBe(t.devnet.control.info().head.number + 1);

  // With the head at h: the payment at h+7, the head then at h+12, all above the solid height
  // (19 blocks back).
  mine(6);
  await t.pay(inv.address, '10');
  mine(6);
  await w.tick(); // scans h+1..h+5, fetches h+6..h+10 and h+11..h+12 ahead
  await prefetched(w);

  // The fork drops the payment's block and those after it; the chain then grows past the
  // solid height of every block the watcher holds.
  expect(t.devnet.control.fork(6, 'drop').replaced).toHaveLength(6);
  mine(25);
  await catchUp(w);

  const invoice = await t.invoice(shop.key, inv.invoice_id);
  expect(invoice).toMatchObject({ status: 'created', amount_received: '0', amount_credited: '0', deposits: [] });
  const rows = await t.app.services.db
    .selectFrom('deposits')
    .select(['status', 'final', 'credited_at'])
    .where('invoice_id', '=', inv.invoice_id)
    .execute();
  expect(rows).toEqual([{ status: 'orphaned', final: 0, credited_at: null }]);
  expect(await t.balanceOf(shop.id)).toBe(0n);
  // Nor was it ever confirmed: the blocks a stale range saw on top of it were not counted.
  const types = (await t.events(shop.id)).filter((e) => e.subject_id === inv.invoice_id).map((e) => e.type);
  expect(types).not.toContain('invoice.confirmed');
  await t.check();
});
