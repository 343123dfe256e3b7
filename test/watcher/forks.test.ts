/**
 * Forks of depth 1..18 (the devnet keeps 19 blocks above the solid height), before and after the
 * deposit is confirmed, with the orphaned transactions dropped or re-included. A dropped deposit
 * leaves every sum and the invoice returns to what is left; a re-included one is the same deposit
 * (same row) and is credited once when final. The ledger invariant holds after every fork.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChainApp, type ChainTestApp } from './fixture.js';

let t: ChainTestApp;
let slow: { id: string; key: string };
let fast: { id: string; key: string };

beforeAll(async () => {
  t = await startChainApp();
  slow = await t.shop({ feePercent: '1' });
  // Confirmed after 1 block: the fork hits a confirmed (not yet final) deposit.
  fast = await t.shop({ feePercent: '1', confirmations: 1 });
  await t.mine(20);
});
afterAll(() => t.close());

const depositRows = (invoiceId: string) =>
  t.app.services.db.selectFrom('deposits').selectAll().where('invoice_id', '=', invoiceId).execute();

async function forkCase(shop: { id: string; key: string }, depth: number, mode: 'drop' | 'reinclude') {
  const inv = await t.create(shop.key, { amount: '10' });
  const tx = await t.pay(inv.address, '10');
  await t.mine(depth);
  const before = await t.invoice(shop.key, inv.invoice_id);
  expect(before.status).toBe(shop === fast ? 'confirmed' : 'seen');
  const report = t.devnet.control.fork(depth, mode);
  expect(report.replaced).toHaveLength(depth);
  t.app.workers?.wake('chain-watcher');
  await t.synced();
  const after = await t.invoice(shop.key, inv.invoice_id);
  if (mode === 'drop') {
    expect(after).toMatchObject({ status: 'created', amount_received: '0', amount_credited: '0', deposits: [] });
    expect((await depositRows(inv.invoice_id)).map((d) => d.status)).toEqual(['orphaned']);
  } else {
    expect(after.status).toBe(shop === fast ? 'confirmed' : 'seen');
    expect(after.deposits).toMatchObject([{ tx_hash: tx, amount: '10' }]);
  }
  await t.check();
  await t.mine(20);
  const final = await t.invoice(shop.key, inv.invoice_id);
  const rows = await depositRows(inv.invoice_id);
  expect(rows).toHaveLength(1);
  if (mode === 'drop') {
    expect(final).toMatchObject({ status: 'created', amount_credited: '0' });
  } else {
    expect(final).toMatchObject({ status: 'settled', amount_received: '10', amount_credited: '9.9' });
    expect(rows[0]).toMatchObject({ status: 'confirmed', final: 1, credited_amount: '9900000' });
  }
  await t.check(true);
  return inv.invoice_id;
}

describe('forks', () => {
  for (const mode of ['drop', 'reinclude'] as const) {
    it(`depth 1..18 before confirmation, ${mode}`, async () => {
      for (let depth = 1; depth <= 18; depth++) await forkCase(slow, depth, mode);
    });
    it(`depth 1..18 after confirmation, ${mode}`, async () => {
      for (let depth = 1; depth <= 18; depth++) await forkCase(fast, depth, mode);
    });
  }

  it('a status re-entered after a fork emits its event again, each once (dedupe keys count)', async () => {
    const id = await forkCase(slow, 3, 'drop');
    const types = (await t.events(slow.id)).filter((e) => e.subject_id === id);
    expect(types.map((e) => e.type)).toEqual(['invoice.created', 'invoice.seen', 'invoice.created']);
    const keys = types.slice(1).map((e) => e.dedupe_key);
    expect(keys.every((k) => typeof k === 'string')).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('the balance equals the final deposits less fees after all those forks', async () => {
    // 36 re-included payments of 10 settled at 9.9 each; dropped ones credited nothing.
    expect(await t.balanceOf(slow.id)).toBe(18n * 9_900_000n);
    expect(await t.balanceOf(fast.id)).toBe(18n * 9_900_000n);
  });

  it('a payment made in time and orphaned by a fork after expires_at is found again in time: the invoice never expires', async () => {
    const inv = await t.create(slow.key, { amount: '10', expires_in: 60 });
    t.clock.advance(48_000);
    await t.mine(1);
    const base = t.clock.now();
    const tx = await t.pay(inv.address, '10');
    // The payment's block 6 s before expires_at, then three more: the scan passes expires_at.
    await t.mine(4);
    expect(await t.invoice(slow.key, inv.invoice_id)).toMatchObject({ status: 'seen', amount_received: '10' });
    // The other fork fills the same slots and carries the payment again in the same one.
    const resume = t.clock.now();
    t.clock.set(base);
    expect(t.devnet.control.fork(4, 'reinclude').reincluded).toEqual([tx]);
    t.clock.set(resume);
    t.app.workers?.wake('chain-watcher');
    await t.synced();
    const got = await t.invoice(slow.key, inv.invoice_id);
    expect(got).toMatchObject({ status: 'seen', amount_received: '10', deposits: [{ tx_hash: tx, late: false }] });
    await t.mine(20);
    expect(await t.invoice(slow.key, inv.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '9.9' });
    // Back to created while the rescan had not reached the payment again, never expired.
    const types = (await t.events(slow.id)).filter((e) => e.subject_id === inv.invoice_id).map((e) => e.type);
    expect(types).toEqual([
      'invoice.created',
      'invoice.seen',
      'invoice.created',
      'invoice.seen',
      'invoice.confirmed',
      'invoice.settled',
    ]);
    await t.check(true);
  });
});
