/**
 * The payout worker under the worker lease: a worker paused after signing past its grant stores
 * and sends nothing once another process holds the lease; the new holder sends the payout once.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { TronClient } from '../../src/chain/client.js';
import { ManualClock } from '../../src/clock.js';
import { createPayoutWorker } from '../../src/payouts/worker/worker.js';
import { WorkerLease } from '../../src/runtime/lease.js';
import { sweepFixture, type SweepFixture } from '../sweeper/fixture.js';
import { approvedPayoutOnFixture, ledgerProblems, successfulTransfersTo, transfersFrom } from './worker-fixture.js';

describe('payout worker fencing', () => {
  let f: SweepFixture | undefined;
  afterAll(() => f?.close());

  it('a worker that lost the lease while paused after signing stores nothing and sends nothing; the new holder sends it once', async () => {
    const clock = new ManualClock(new Date());
    f = await sweepFixture({ clock });
    const fx = f;
    const db = fx.database.db;
    const { payoutId: id, to } = await approvedPayoutOnFixture(fx, 'Fenced shop', 'fenced-1');
    const payout = () => db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    // The old holder (fixture lease, token 1) pauses right after signing, before it stores the bytes.
    let resume!: () => void;
    const paused = new Promise<void>((r) => (resume = r));
    const signedByOld: string[] = [];
    const pausingChain = Object.create(fx.services.chain) as TronClient;
    pausingChain.sign = async (tx, key) => {
      const signed = await fx.services.chain.sign(tx, key);
      signedByOld.push(signed.txID);
      await paused;
      return signed;
    };
    const old = createPayoutWorker({ ...fx.services, chain: pausingChain }, fx.lease);
    const oldTick = old.tick(new AbortController().signal);
    await vi.waitFor(() => expect(signedByOld).toHaveLength(1), { timeout: 10_000 });

    // Paused past its grant; another process takes the lease and the fencing token moves on.
    clock.advance(fx.lease.ttlMs + 1);
    const next = new WorkerLease(db, clock, { holder: 'new-holder', ttlMs: fx.lease.ttlMs });
    expect(await next.acquireOrRenew()).toBe(true);
    resume();
    await oldTick;

    const after = await payout();
    expect(after).toMatchObject({
      status: 'queued',
      signed_tx: null,
      tx_hash: null,
      sign_attempts: 0,
      wait_reason: null,
    });
    expect(fx.logs()).toContain('worker lease lost before recording a signed payout');
    fx.devnet.control.mine(3);
    expect(await fx.services.chain.getTransaction(signedByOld[0]!)).toBeNull();
    expect(transfersFrom(fx.devnet, fx.hot).filter((t) => t.token !== null)).toEqual([]);

    // The new holder signs and sends it, once; the old one, still running, adds nothing.
    const fresh = createPayoutWorker(fx.services, next);
    for (let i = 0; i < 30 && (await payout()).status !== 'confirmed'; i++) {
      await fresh.tick(new AbortController().signal);
      await old.tick(new AbortController().signal);
      fx.devnet.control.mine(1);
    }
    const done = await payout();
    expect(done).toMatchObject({ status: 'confirmed', sign_attempts: 1 });
    expect(done.tx_hash).not.toBe(signedByOld[0]);
    expect(successfulTransfersTo(fx.devnet, fx.hot, to).map((t) => [t.txid, t.amount])).toEqual([
      [done.tx_hash, 10_000_000n],
    ]);
    expect(await ledgerProblems(db)).toEqual([]);
  });
});
