/**
 * What stops everything that signs: while the node contradicts finality (a watcher stop not yet
 * resumed) the payout worker and the sweeper act on nothing; the operator's brake on every asset
 * (`payout halt --worker`, which `paygate restore` sets) stops the sweeper as well as payouts.
 * Each resumes with the operator's word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTx } from '../../src/db/database.js';
import { setHalt } from '../../src/payouts/halts.js';
import { createPayoutWorker } from '../../src/payouts/worker/worker.js';
import { recordWatcherStop, resumeWatcher } from '../../src/watcher/stop.js';
import { sweepFixture, USDT, type SweepFixture } from '../sweeper/fixture.js';
import { approvedPayoutOnFixture } from './worker-fixture.js';

let f: SweepFixture;
let deposit: string;
let payoutId: string;
afterAll(() => f?.close());

beforeAll(async () => {
  f = await sweepFixture();
  ({ payoutId } = await approvedPayoutOnFixture(f, 'Stopped shop', 'stopped-1'));
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
