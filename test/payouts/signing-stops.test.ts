/**
 * What stops everything that signs: while the node contradicts finality (a watcher stop not yet
 * resumed) the payout worker and the sweeper act on nothing; the operator's brake on every asset
 * (`payout halt --worker`, which `paygate restore` sets) stops the sweeper as well as payouts.
 * Each resumes with the operator's word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTx } from '../../src/db/database.js';
import { approvedMerchantWithKey } from '../../src/keys/service.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { findMerchant } from '../../src/merchants/store.js';
import { setHalt } from '../../src/payouts/halts.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { createPayout } from '../../src/payouts/service.js';
import { createPayoutWorker } from '../../src/payouts/worker/worker.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { recordWatcherStop, resumeWatcher } from '../../src/watcher/stop.js';
import { sweepFixture, TRX, USDT, type SweepFixture } from '../sweeper/fixture.js';
import { newAddress } from './fixture.js';

let f: SweepFixture;
let deposit: string;
let payoutId: string;
afterAll(() => f?.close());

beforeAll(async () => {
  f = await sweepFixture();
  const db = f.database.db;
  const { clock, catalog } = f.services;
  f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
  f.devnet.control.fund({ address: f.hot, asset: 'USDT_TRON', amount: 100n * USDT, mine: true });
  const { merchant: view } = await approvedMerchantWithKey(db, clock, 'test', { name: 'Stopped shop' });
  const merchant = (await findMerchant(db, view.merchant_id))!;
  await creditMerchant(db, clock, 'test', catalog, merchant.id, { asset: 'USDT_TRON', amount: '50', memo: 'seed' });
  const to = newAddress();
  await addToWhitelist(db, clock, 'test', catalog, merchant.id, { asset: 'USDT_TRON', address: to, delay: '0' });
  const created = await createPayout({ db, clock, catalog }, merchant, {
    reference: 'stopped-1',
    asset: 'USDT_TRON',
    to_address: to,
    amount: '10',
  });
  payoutId = created.payout.payout_id;
  if (created.payout.status === 'pending_review') await approvePayout(db, clock, 'test', payoutId);
  deposit = await f.address(0);
  await f.deposit(deposit, 'USDT_TRON', 100n * USDT);
});

const status = async () =>
  (await f.database.db.selectFrom('payouts').select('status').where('id', '=', payoutId).executeTakeFirstOrThrow())
    .status;
const sweeps = () => f.database.db.selectFrom('sweeps').select(['status']).where('address', '=', deposit).execute();

describe('signing stops', () => {
  it('while the node contradicts finality neither payouts nor sweeps move, until the watcher is resumed', async () => {
    const db = f.database.db;
    const { clock } = f.services;
    const worker = createPayoutWorker(f.services, f.lease);
    const tick = () => worker.tick(new AbortController().signal);
    await writeTx(db, (trx) =>
      recordWatcherStop(trx, clock, {
        height: 9,
        scannedHash: 'aa'.repeat(32),
        nodeHash: 'bb'.repeat(32),
        finalHeight: 9,
      }),
    );
    await tick();
    await f.sweeper().tick();
    expect(await status()).toBe('approved');
    expect(await sweeps()).toEqual([]);

    await resumeWatcher(db, clock, 'test');
    await tick();
    expect(['signing', 'broadcast']).toContain(await status());
  });

  it('the brake on every asset stops the sweeper too', async () => {
    const { clock, catalog } = f.services;
    const sweeper = f.sweeper();
    await setHalt(f.database.db, clock, 'test', catalog, { worker: true, halted: true });
    await sweeper.tick();
    expect(await sweeps()).toEqual([]);
    await setHalt(f.database.db, clock, 'test', catalog, { worker: true, halted: false });
    await f.run(sweeper);
    expect(await sweeps()).toEqual([{ status: 'done' }]);
  });
});
