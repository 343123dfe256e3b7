/**
 * The node misbehaves mid-scan: `{"Error"}` answers, HTTP 5xx, hanging requests, slow answers,
 * lost answers, fields left out. The watcher backs off and retries; nothing is lost or counted twice, and the API
 * keeps answering meanwhile. Also: the same blocks delivered again (a re-scan from an older cursor).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FaultSpec } from '../../src/devnet/index.js';
import { writeCursor, readCursor } from '../../src/watcher/store.js';
import { writeTx } from '../../src/db/database.js';
import { startChainApp, type ChainTestApp } from './fixture.js';

let t: ChainTestApp;
let shop: { id: string; key: string };

beforeAll(async () => {
  t = await startChainApp({ nodeTimeoutMs: 300 });
  shop = await t.shop({ feePercent: '1' });
  await t.synced();
});
afterAll(async () => {
  t.devnet.control.clearFaults();
  await t.close();
});

/** Three invoices paid in blocks spread over a 150-block stretch scanned while the fault is active. */
async function scanThrough(faults: FaultSpec[]) {
  const invoices = [
    await t.create(shop.key, { amount: '10' }),
    await t.create(shop.key, { amount: '10' }),
    await t.create(shop.key, { amount: '10' }),
  ];
  for (const f of faults) t.devnet.control.addFault(f);
  for (const inv of invoices) {
    await t.pay(inv.address, '10');
    for (let i = 0; i < 50; i++) {
      t.clock.advance(3_000);
      t.devnet.control.mine(1);
    }
  }
  t.app.workers?.wake('chain-watcher');
  // The API answers while the watcher struggles.
  expect((await t.invoice(shop.key, invoices[0].invoice_id)).invoice_id).toBe(invoices[0].invoice_id);
  await t.synced();
  // Every injected failure was met by the scan (each fault retires after its `times`).
  expect(t.devnet.control.faults()).toEqual([]);
  await t.mine(1);
  for (const inv of invoices)
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
      status: 'settled',
      amount_received: '10',
      amount_credited: '9.9',
    });
  await t.check(true);
}

/** The node's solid block answered as a block of another chain (its height, another id) while `lying`. */
function solidOfAnotherChain(lying: boolean) {
  const chain = t.app.services.chain;
  const real = chain.getSolidBlock.bind(chain);
  const liar = { lying, lies: 0, restore: () => void (chain.getSolidBlock = real) };
  chain.getSolidBlock = async () => {
    const solid = await real();
    return liar.lying ? (liar.lies++, { ...solid, id: 'ff'.repeat(32) }) : solid;
  };
  return liar;
}

describe('node faults mid-scan', () => {
  it('{"Error"} answers on block ranges and transaction infos', async () => {
    await scanThrough([
      { kind: 'error', path: '/wallet/getblockbylimitnext', times: 4 },
      {
        kind: 'error',
        path: '/wallet/gettransactioninfobyblocknum',
        times: 6,
        message: 'class java.lang.NullPointerException',
      },
    ]);
  });

  it('HTTP 503 and lost answers', async () => {
    await scanThrough([
      { kind: 'http', path: '/wallet/getblockbylimitnext', times: 3, status: 503 },
      { kind: 'lost_answer', path: '/wallet/gettransactioninfobyblocknum', times: 5 },
      { kind: 'http', path: '/walletsolidity/getnowblock', times: 2, status: 502 },
    ]);
  });

  it('hanging requests (the client times out) on the head, ranges and infos', async () => {
    await scanThrough([
      { kind: 'hang', path: '/wallet/getnowblock', times: 2 },
      { kind: 'hang', path: '/wallet/getblockbylimitnext', times: 3 },
      { kind: 'hang', path: '/wallet/gettransactioninfobyblocknum', times: 3 },
    ]);
  });

  it('slow answers', async () => {
    await scanThrough([{ kind: 'latency', ms: 150, times: 6 }]);
  });

  it('headers and token amounts the node prints without a field are asked for again, never read as empty or zero', async () => {
    await scanThrough([
      { kind: 'omit_field', path: '/wallet/getblockbylimitnext', field: 'blockID', times: 2 },
      { kind: 'omit_field', path: '/wallet/getblockbylimitnext', field: 'parentHash', times: 2 },
      { kind: 'omit_field', path: '/wallet/getblockbylimitnext', field: 'timestamp', times: 2 },
      { kind: 'omit_field', path: '/wallet/gettransactioninfobyblocknum', field: 'data', times: 3 },
    ]);
  });

  it('a TRX payment printed without its amount or receiver is asked for again, never skipped', async () => {
    const inv = await t.create(shop.key, { amount: '5', asset: 'TRX_TRON' });
    await t.pay(inv.address, '5', 'TRX_TRON');
    t.devnet.control.addFault({ kind: 'omit_field', path: '/wallet/getblockbylimitnext', field: 'amount', times: 2 });
    t.devnet.control.addFault({
      kind: 'omit_field',
      path: '/wallet/getblockbylimitnext',
      field: 'to_address',
      times: 2,
    });
    await t.mine(20);
    expect(t.devnet.control.faults()).toEqual([]);
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
      status: 'settled',
      amount_received: '5',
      amount_credited: '4.95',
    });
    await t.check(true);
  });

  it('a solid block of another chain, or above the head, makes nothing final until the node agrees', async () => {
    const chain = t.app.services.chain;
    const real = chain.getSolidBlock.bind(chain);
    let lie: 'other chain' | 'above head' | null = 'other chain';
    let lies = 0;
    // A /walletsolidity backend on an abandoned fork, then one ahead of the full node's head.
    chain.getSolidBlock = async () => {
      const solid = await real();
      if (lie === null) return solid;
      lies++;
      return lie === 'other chain' ? { ...solid, id: 'ff'.repeat(32) } : { ...solid, number: solid.number + 1_000 };
    };
    try {
      const inv = await t.create(shop.key, { amount: '10' });
      const before = await t.balanceOf(shop.id);
      await t.pay(inv.address, '10');
      for (const kind of ['other chain', 'above head'] as const) {
        lie = kind;
        const from = lies;
        for (let i = 0; i < 25; i++) {
          t.clock.advance(3_000);
          t.devnet.control.mine(1);
        }
        t.app.workers?.wake('chain-watcher');
        await vi.waitFor(() => expect(lies).toBeGreaterThan(from + 3), { timeout: 10_000, interval: 10 });
        expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ status: 'created', amount_credited: '0' });
        expect(await t.balanceOf(shop.id)).toBe(before);
      }
      lie = null;
      await t.mine(1);
      expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
        status: 'settled',
        amount_received: '10',
        amount_credited: '9.9',
      });
    } finally {
      chain.getSolidBlock = real;
    }
    await t.check(true);
  });

  it('at the head, block by block, a solid block of another chain than the one stored makes nothing final', async () => {
    const liar = solidOfAnotherChain(false);
    try {
      const inv = await t.create(shop.key, { amount: '10' });
      const before = await t.balanceOf(shop.id);
      await t.pay(inv.address, '10');
      await t.mine(5);
      liar.lying = true;
      // One block at a time: the solid height is always a block scanned and stored earlier.
      for (let i = 0; i < 25; i++) {
        const from = liar.lies;
        t.clock.advance(3_000);
        t.devnet.control.mine(1);
        t.app.workers?.wake('chain-watcher');
        await vi.waitFor(() => expect(liar.lies).toBeGreaterThan(from), { timeout: 10_000, interval: 5 });
      }
      expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ amount_credited: '0' });
      expect(await t.balanceOf(shop.id)).toBe(before);
      liar.lying = false;
      await t.mine(1);
      expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '9.9' });
    } finally {
      liar.restore();
    }
    await t.check(true);
  });

  it('while a catch-up is below the solid block, a solid block of another chain makes nothing final', async () => {
    const liar = solidOfAnotherChain(true);
    try {
      const inv = await t.create(shop.key, { amount: '10' });
      const before = await t.balanceOf(shop.id);
      await t.pay(inv.address, '10');
      // 150 blocks at once: the first range (100 blocks, the payment in its first) ends below the
      // solid block, 19 under the head; the next range reaches it and sees the other chain.
      for (let i = 0; i < 150; i++) {
        t.clock.advance(3_000);
        t.devnet.control.mine(1);
      }
      t.app.workers?.wake('chain-watcher');
      // The first range recorded the payment (read from the database: polling the API would spend its rate limit).
      const db = t.app.services.db;
      await vi.waitFor(
        async () =>
          expect(
            (
              await db
                .selectFrom('deposits')
                .select('status')
                .where('invoice_id', '=', inv.invoice_id)
                .executeTakeFirst()
            )?.status,
          ).toBe('confirmed'),
        { timeout: 10_000, interval: 10 },
      );
      const from = liar.lies;
      await vi.waitFor(() => expect(liar.lies).toBeGreaterThan(from + 3), { timeout: 10_000, interval: 10 });
      expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ status: 'confirmed', amount_credited: '0' });
      expect(await t.balanceOf(shop.id)).toBe(before);
      liar.lying = false;
      await t.mine(1);
      expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
        status: 'settled',
        amount_received: '10',
        amount_credited: '9.9',
      });
    } finally {
      liar.restore();
    }
    await t.check(true);
  });

  it('a backend behind the last one (lower head and solid) never takes a confirmed payment back: confirmed is sent once', async () => {
    const fast = await t.shop({ feePercent: '1', confirmations: 1 });
    const chain = t.app.services.chain;
    const [realHead, realSolid] = [chain.getHeadBlock.bind(chain), chain.getSolidBlock.bind(chain)];
    const inv = await t.create(fast.key, { amount: '10' });
    // What a lagging backend behind a load balancer answers: the chain as it was before the payment.
    const [staleHead, staleSolid] = [await realHead(), await realSolid()];
    await t.pay(inv.address, '10');
    await t.mine(3);
    expect(await t.invoice(fast.key, inv.invoice_id)).toMatchObject({ status: 'confirmed', amount_credited: '0' });
    let stale = 0;
    chain.getHeadBlock = async () => (stale++, staleHead);
    chain.getSolidBlock = async () => staleSolid;
    try {
      t.app.workers?.wake('chain-watcher');
      await vi.waitFor(() => expect(stale).toBeGreaterThan(5), { timeout: 10_000, interval: 5 });
      const got = await t.invoice(fast.key, inv.invoice_id);
      expect(got).toMatchObject({ status: 'confirmed', deposits: [{ status: 'confirmed' }] });
    } finally {
      chain.getHeadBlock = realHead;
      chain.getSolidBlock = realSolid;
    }
    await t.mine(20);
    expect(await t.invoice(fast.key, inv.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '9.9' });
    const types = (await t.events(fast.id)).filter((e) => e.subject_id === inv.invoice_id).map((e) => e.type);
    expect(types).toEqual(['invoice.created', 'invoice.seen', 'invoice.confirmed', 'invoice.settled']);
    await t.check(true);
  });

  it('a node that answers no solid block ({}) is still scanned; nothing is final until it answers one', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    const before = await t.balanceOf(shop.id);
    t.devnet.control.addFault({ kind: 'not_found', path: '/walletsolidity/getnowblock' });
    try {
      await t.pay(inv.address, '10');
      await t.mine(25);
      // Seen and confirmed by the blocks on top, but neither final nor credited.
      expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ amount_received: '10', amount_credited: '0' });
      expect(await t.balanceOf(shop.id)).toBe(before);
    } finally {
      t.devnet.control.clearFaults();
    }
    await t.mine(1);
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '9.9' });
    await t.check(true);
  });

  it('infos the node leaves out are asked for again, never read as "no token transfers"', async () => {
    const chain = t.app.services.chain;
    const real = chain.getScanTransferLogs.bind(chain);
    let lies = 0;
    // A lagging node behind a load balancer: the block's infos come back without its transactions.
    chain.getScanTransferLogs = async (num) => (lies < 3 ? (lies++, { ids: [], logs: [], unsure: [] }) : real(num));
    try {
      const inv = await t.create(shop.key, { amount: '10' });
      await t.pay(inv.address, '10');
      await t.mine(25);
      expect(lies).toBe(3);
      await t.mine(1);
      expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
        status: 'settled',
        amount_received: '10',
        amount_credited: '9.9',
      });
    } finally {
      chain.getScanTransferLogs = real;
    }
    await t.check(true);
  });

  it('a result or block number the node left out is asked for again, never read as "no deposit"', async () => {
    const chain = t.app.services.chain;
    const realBlocks = chain.getScanBlocks.bind(chain);
    const realLogs = chain.getScanTransferLogs.bind(chain);
    const lies = { result: 0, blockNumber: 0, receipt: 0 };
    // As the parser reduces such answers (test/chain/parse-worker.test.ts): a call whose
    // `contractRet` is missing is not among the block's successful calls but among its unsure ones…
    chain.getScanBlocks = async (from, to) =>
      (await realBlocks(from, to)).map((b) =>
        b.calls.length > 0 && lies.result < 2
          ? (lies.result++, { ...b, calls: b.calls.slice(1), unsure: b.calls.slice(0, 1) })
          : b,
      );
    chain.getScanTransferLogs = async (num) => {
      const r = await realLogs(num);
      if (r.logs.length === 0) return r;
      // …an info without `blockNumber` has its logs at block 0, and one without `receipt.result`
      // has no logs kept, its id among the unsure ones.
      if (lies.blockNumber < 2)
        return (lies.blockNumber++, { ...r, logs: r.logs.map((l) => ({ ...l, blockNumber: 0 })) });
      if (lies.receipt < 2) return (lies.receipt++, { ...r, logs: [], unsure: r.logs.map((l) => l.txID) });
      return r;
    };
    try {
      const inv = await t.create(shop.key, { amount: '10' });
      await t.pay(inv.address, '10');
      await t.mine(25);
      expect(lies).toEqual({ result: 2, blockNumber: 2, receipt: 2 });
      await t.mine(1);
      expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
        status: 'settled',
        amount_received: '10',
        amount_credited: '9.9',
      });
    } finally {
      chain.getScanBlocks = realBlocks;
      chain.getScanTransferLogs = realLogs;
    }
    await t.check(true);
  });

  it('the same blocks delivered again (cursor moved back) change nothing', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    await t.pay(inv.address, '10');
    await t.mine(25);
    const balanceBefore = await t.balanceOf(shop.id);
    const db = t.app.services.db;
    const events = (await t.events(shop.id)).length;
    const cur = (await readCursor(db))!;
    await writeTx(db, (trx) => writeCursor(trx, { ...cur, next_block: cur.next_block - 30 }));
    await t.mine(1);
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '9.9' });
    expect(await t.balanceOf(shop.id)).toBe(balanceBefore);
    expect((await t.events(shop.id)).length).toBe(events);
    await t.check(true);
  });
});
