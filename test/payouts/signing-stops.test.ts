/**
 * What stops everything that signs: while the node contradicts finality (a watcher stop not yet
 * resumed) the payout worker and the sweeper act on nothing; the operator's brake on every asset
 * (`payout halt --worker`, which `paygate restore` sets) stops the sweeper as well as payouts.
 * Each resumes with the operator's word.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { writeTx } from '../../src/db/database.js';
import { approvedMerchantWithKey } from '../../src/keys/service.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { findMerchant } from '../../src/merchants/store.js';
import { setHalt } from '../../src/payouts/halts.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { createPayout } from '../../src/payouts/service.js';
import { createPayoutWorker } from '../../src/payouts/worker/worker.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { recordWatcherStop, resumeWatcher } from '../../src/workers/watcher-stop.js';
import { sweepFixture, TRX, USDT, type SweepFixture } from '../sweeper/fixture.js';
import { newAddress } from './fixture.js';

let f: SweepFixture | undefined;
afterAll(() => f?.close());

describe('signing stops', () => {
  it('while the node contradicts finality neither payouts nor sweeps move; the brake on every asset stops the sweeper too', async () => {
    f = await sweepFixture();
    const fx = f;
    const db = fx.database.db;
    const { clock, catalog } = fx.services;
    fx.devnet.control.fund({ address: fx.hot, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
    fx.devnet.control.fund({ address: fx.hot, asset: 'USDT_TRON', amount: 100n * USDT, mine: true });
    const { merchant: view } = await approvedMerchantWithKey(db, clock, 'test', { name: 'Stopped shop' });
    const merchant = (await findMerchant(db, view.merchant_id))!;
    await creditMerchant(db, clock, 'test', catalog, merchant.id, { asset: 'USDT_TRON', amount: '50', memo: 'seed' });
    const to = newAddress();
    await addToWhitelist(db, clock, 'test', catalog, merchant.id, { asset: 'USDT_TRON', address: to, delay: '0' });
    const created = await createPayout({ db, clock, catalog }, merchant, { reference: 'stopped-1', asset: 'USDT_TRON', to_address: to, amount: '10' });
    const id = created.payout.payout_id;
    if (created.payout.status === 'pending_review') await approvePayout(db, clock, 'test', id);
    const deposit = await fx.address(0);
    await fx.deposit(deposit, 'USDT_TRON', 100n * USDT);
    const status = async () => (await db.selectFrom('payouts').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    const sweeps = () => db.selectFrom('sweeps').select(['status']).where('address', '=', deposit).execute();
    const worker = createPayoutWorker(fx.services, fx.lease);
    const sweeper = fx.sweeper();
    const tick = () => worker.tick(new AbortController().signal);

    await writeTx(db, (trx) => recordWatcherStop(trx, clock, { height: 9, scannedHash: 'aa'.repeat(32), nodeHash: 'bb'.repeat(32), finalHeight: 9 }));
    await tick();
    await sweeper.tick();
    expect(await status()).toBe('approved');
    expect(await sweeps()).toEqual([]);

    await resumeWatcher(db, clock, 'test');
    await tick();
    expect(['signing', 'broadcast']).toContain(await status());

    await setHalt(db, clock, 'test', catalog, { worker: true, halted: true });
    await sweeper.tick();
    expect(await sweeps()).toEqual([]);
    await setHalt(db, clock, 'test', catalog, { worker: true, halted: false });
    await fx.run(sweeper);
    expect(await sweeps()).toEqual([{ status: 'done' }]);
  });
});
