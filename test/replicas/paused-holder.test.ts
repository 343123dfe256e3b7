/**
 * A lease holder paused at the worst moment and resumed after another replica took over writes
 * nothing (docs/adr/0049-the-lease-across-hosts.md). Replica A stops itself (SIGSTOP, a test hook)
 * right after signing a payout and before storing it; while it is stopped the operator halts the
 * payout worker and replica B takes the lease. Resumed, A's fenced write fails on the lease: the
 * payout stays as B left it, nothing reaches the chain, and A says it lost the lease. Without the
 * fencing check, A would store its signature and send the payout despite the halt.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { systemClock } from '../../src/clock.js';
import { setHalt } from '../../src/payouts/halts.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { api } from '../helpers/http.js';
import { ledgerProblems, successfulTransfersTo, transfersFrom } from '../payouts/worker-fixture.js';
import { isStopped, logged, payoutDestination, startCluster, type Cluster } from './harness.js';

let cluster: Cluster | undefined;
afterAll(() => cluster?.close(), 60_000);

describe('a paused lease holder resumed after failover', () => {
  it('writes, signs and sends nothing: its fenced write fails on the lease and it says so', async () => {
    // A longer grant than the other tests': A keeps it through pauses of a loaded machine.
    cluster = await startCluster({ env: { WORKER_LEASE_TTL: '4s' } });
    const c = cluster;
    const catalog = loadCatalog('devnet');
    const [sa, sb] = [c.spawn('a', { PAYGATE_TEST_STOP_AFTER_SIGN: '1' }), c.spawn('b')];
    const to = await payoutDestination(c);
    c.devnet.control.fund({ address: c.hotAddress, asset: 'TRX_TRON', amount: 1_000_000_000n });
    c.devnet.control.fund({ address: c.hotAddress, asset: 'USDT_TRON', amount: 100_000_000n, mine: true });

    // A alone at first: no other replica can take the lease from it before it signs, however
    // slowly a loaded machine runs it.
    const a = await sa.start();
    await vi.waitFor(async () => expect(await c.holderPid()).toBe(a.pid), { timeout: 20_000, interval: 100 });

    const created = await api(a.url, '/v1/payouts', {
      key: c.apiKey,
      body: { reference: 'paused-1', asset: 'USDT_TRON', to_address: to, amount: '7' },
    });
    expect(created.status).toBe(202);
    const id = created.body.payout_id as string;
    const payout = () => c.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    // A first payout to an address waits for review.
    if (created.body.status === 'pending_review') await approvePayout(c.db, systemClock, 'test', id);

    // A signs the payout and stops before storing it.
    await vi.waitFor(
      () => {
        expect(isStopped(a.pid)).toBe(true);
        expect(logged(a, 'test hook: stopping after signing')).toHaveLength(1);
      },
      { timeout: 60_000, interval: 50 },
    );
    const [hook] = logged(a, 'test hook: stopping after signing');
    expect(hook).toMatchObject({ payout: id });
    const signedByA = hook!.txid as string;

    // Meanwhile the operator halts the payout worker, and B starts, takes the lease and sees the halt.
    await setHalt(c.db, systemClock, 'test', catalog, { worker: true, halted: true });
    const b = await sb.start();
    await vi.waitFor(async () => expect(await c.holderPid()).toBe(b.pid), { timeout: 30_000, interval: 100 });
    await vi.waitFor(async () => expect((await payout()).wait_reason).toMatch(/halted/), {
      timeout: 30_000,
      interval: 100,
    });
    const beforeResume = await payout();
    expect(beforeResume).toMatchObject({ status: 'queued', signed_tx: null, tx_hash: null, sign_attempts: 0 });

    // A resumes: its write of the signed payout fails on the lease; it stops its background work.
    a.child.kill('SIGCONT');
    await vi.waitFor(() => expect(logged(a, 'worker lease lost; background work stopped')).toHaveLength(1), {
      timeout: 30_000,
      interval: 100,
    });
    await vi.waitFor(
      () => expect(logged(a, 'worker lease lost before recording a signed payout; dropped unsent')).toHaveLength(1),
      { timeout: 30_000, interval: 100 },
    );
    expect(await payout()).toEqual(beforeResume);
    expect(transfersFrom(c.devnet, c.hotAddress)).toEqual([]);
    // A still serves /v1: it lost the background work, not its place behind the load balancer.
    expect((await api(a.url, `/v1/payouts/${id}`, { key: c.apiKey })).body.status).toBe('queued');

    // Lifted, B sends the payout once, with its own signature; A's never reaches the chain.
    await setHalt(c.db, systemClock, 'test', catalog, { worker: true, halted: false });
    await vi.waitFor(async () => expect((await payout()).status).toBe('confirmed'), {
      timeout: 30_000,
      interval: 200,
    });
    const done = await payout();
    expect(done.sign_attempts).toBe(1);
    expect(done.tx_hash).not.toBe(signedByA);
    expect(successfulTransfersTo(c.devnet, c.hotAddress, to).map((t) => [t.txid, t.amount])).toEqual([
      [done.tx_hash, 7_000_000n],
    ]);
    expect(transfersFrom(c.devnet, c.hotAddress).map((t) => t.txid)).toEqual([done.tx_hash]);
    expect(await ledgerProblems(c.db)).toEqual([]);
    expect(logged(a, 'worker lease acquired')).toHaveLength(1);
  }, 150_000);
});
