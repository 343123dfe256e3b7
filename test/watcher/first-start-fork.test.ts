/**
 * A first scan starts at the head and keeps no older block. A fork that reaches below that start
 * and re-includes a payment into an older block must still find the payment: with no stored block
 * left on the node's chain, the watcher goes back to the solid block, which no fork can replace.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lowestScanned } from '../../src/watcher/store.js';
import { startChainApp, type ChainTestApp } from './fixture.js';

let t: ChainTestApp;
beforeAll(async () => {
  // A history older than the first scan, above the solid height (19 blocks kept above it).
  t = await startChainApp({ history: 25 });
  await t.mine(1);
});
afterAll(() => t.close());

it('finds a payment that a fork moved below the first scan start', async () => {
  const start = (await lowestScanned(t.app.services.db))!;
  const shop = await t.shop({ feePercent: '1' });
  const inv = await t.create(shop.key, { amount: '10' });
  const tx = await t.pay(inv.address, '10');
  await t.mine(2);
  expect((await t.invoice(shop.key, inv.invoice_id)).status).toBe('seen');
  // Back 12 blocks from the head: the payment is re-included right above the fork point, which
  // is below the first block the watcher ever scanned.
  const report = t.devnet.control.fork(12, 'reinclude');
  const moved = t.devnet.control.chain.blocks.find((b) => b.txs.some((x) => x.tx.txID === tx))!.number;
  expect(moved).toBeLessThan(start);
  expect(report.replaced).toHaveLength(12);
  await t.mine(1);
  expect((await t.invoice(shop.key, inv.invoice_id)).deposits).toMatchObject([{ tx_hash: tx, amount: '10' }]);
  await t.mine(20);
  expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({
    status: 'settled',
    amount_received: '10',
    amount_credited: '9.9',
  });
  await t.check(true);
});
