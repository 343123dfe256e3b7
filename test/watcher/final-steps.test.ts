/**
 * A backlog of deposits reaching the solid height together (a catch-up's whole stretch becomes
 * final when the scan reaches the solid block) is made final and credited in steps of at most
 * `finalPerCommit` deposits, each step its own short write transaction, cut between blocks. And a
 * rollback during a catch-up makes nothing final the scan has not checked against the solid block.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalHeight } from '../../src/watcher/deposit-progress.js';
import { readCursor } from '../../src/watcher/store.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { mineUnwatched, startChainApp, type ChainTestApp } from './fixture.js';

let t: ChainTestApp;
beforeAll(async () => {
  t = await startChainApp({ watcher: false });
});
afterAll(() => t.close());

/** Blocks, 3 s of the shared clock each (block times follow it). */
const mine = (n: number) => mineUnwatched(t, n);

describe('final in steps', () => {
  it('cuts between blocks, never inside one, and never stops progress', () => {
    const rows = [5, 6, 6, 7, 9].map((block_number) => ({ final: 0, block_number }));
    expect(finalHeight(rows, 9, 5)).toBe(9);
    expect(finalHeight(rows, 9, 3)).toBe(6);
    // The block holding the limit's deposit is left whole to the next step.
    expect(finalHeight(rows, 9, 2)).toBe(5);
    // A first block holding more than the limit becomes final whole.
    expect(finalHeight(rows.slice(1), 9, 1)).toBe(6);
    // Deposits already final, or above the solid height, do not count.
    expect(finalHeight([{ final: 1, block_number: 4 }, ...rows], 6, 3)).toBe(6);
  });

  it("credits a backlog two deposits a commit, each once, and the cursor's solid height follows", async () => {
    const shop = await t.shop({ feePercent: '1' });
    const w = chainWatcher(t.app.services, null, { finalPerCommit: 2 });
    mine(1);
    while (await w.tick());
    const invoices: string[] = [];
    for (let i = 0; i < 5; i++) {
      const inv = await t.create(shop.key, { amount: '10' });
      await t.pay(inv.address, '10');
      mine(1);
      invoices.push(inv.invoice_id);
    }
    // The five payment blocks end 25 blocks under the head: all below the solid height.
    mine(25);
    const settled = async () =>
      (await Promise.all(invoices.map((id) => t.invoice(shop.key, id)))).filter((i) => i.status === 'settled').length;
    const steps: { settled: number; balance: bigint; more: boolean }[] = [];
    for (let more = true; more;) {
      more = await w.tick();
      steps.push({ settled: await settled(), balance: await t.balanceOf(shop.id), more });
    }
    expect(steps).toEqual([
      { settled: 2, balance: 2n * 9_900_000n, more: true },
      { settled: 4, balance: 4n * 9_900_000n, more: true },
      { settled: 5, balance: 5n * 9_900_000n, more: false },
    ]);
    const cursor = await readCursor(t.app.services.db);
    expect(cursor?.solid_number).toBe(t.devnet.control.info().solid.number);
    await t.check(true);
  });

  it('a rollback while catching up below the solid block credits nothing before the scan reaches it', async () => {
    const shop = await t.shop({ feePercent: '1' });
    const chain = t.app.services.chain;
    const w = chainWatcher(t.app.services, null, { batch: 5, prefetchDepth: 1 });
    mineUnwatched(t, 1);
    while (await w.tick());
    const inv = await t.create(shop.key, { amount: '10' });
    await t.pay(inv.address, '10');
    // The payment in the first of 40 blocks: the solid block, 19 under the head, is far above
    // the first range (5 blocks).
    mineUnwatched(t, 40);
    const real = chain.getScanBlocks.bind(chain);
    let calls = 0;
    // The range fetched ahead during the first tick comes back as if the node had forked under
    // the blocks scanned: the next tick rolls back to the last block still on the node's chain.
    chain.getScanBlocks = async (from, to) => {
      const blocks = await real(from, to);
      return ++calls === 2 ? blocks.map((b, i) => (i === 0 ? { ...b, parentHash: 'ee'.repeat(32) } : b)) : blocks;
    };
    try {
      expect(await w.tick()).toBe(true);
      expect(await w.tick()).toBe(true);
      expect(calls).toBeGreaterThanOrEqual(3); // the range, the one ahead, the rollback's own look
    } finally {
      chain.getScanBlocks = real;
    }
    const deposit = () =>
      t.app.services.db
        .selectFrom('deposits')
        .select(['status', 'final', 'credited_at'])
        .where('invoice_id', '=', inv.invoice_id)
        .executeTakeFirstOrThrow();
    expect(await deposit()).toEqual({ status: 'confirmed', final: 0, credited_at: null });
    expect(await t.balanceOf(shop.id)).toBe(0n);
    while (await w.tick());
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '9.9' });
    expect(await t.balanceOf(shop.id)).toBe(9_900_000n);
    await t.check(true);
  });
});
