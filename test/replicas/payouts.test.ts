/**
 * Exactly-once payouts across replicas on PostgreSQL: payouts created over both replicas and
 * approved; the lease holder SIGKILLed between storing a signed payout and broadcasting it (a test
 * hook), then its successor SIGSTOPped with payouts in flight until a third replica takes over,
 * and SIGCONTed. Every payout ends confirmed, each by one successful transfer on the devnet, the
 * ledger balanced, and the stopped replica says it lost the lease.
 */
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { systemClock } from '../../src/clock.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { api } from '../helpers/http.js';
import { ledgerProblems } from '../payouts/worker-fixture.js';
import { logged, payoutsAgainstChain, startCluster, type Cluster, type Replica } from './harness.js';

let cluster: Cluster | undefined;
afterAll(() => cluster?.close(), 60_000);

const FINAL = ['confirmed', 'failed', 'rejected'];

describe('payouts across replicas under kills and stops', () => {
  it('each payout is confirmed exactly once on chain and the ledger balances', async () => {
    // Blocks every second: a payout stays in flight for seconds, long enough to stop its holder then.
    cluster = await startCluster({ devnet: { blockTimeMs: 1_000, solidLag: 3 } });
    const c = cluster;
    const catalog = loadCatalog('devnet');
    const [sa, sb, sc] = [c.spawn('a', { PAYGATE_TEST_KILL_AFTER_SIGN: '1' }), c.spawn('b'), c.spawn('c')];
    const addresses = Array.from(
      { length: 4 },
      () => TronWeb.address.fromPrivateKey(randomBytes(32).toString('hex')) as string,
    );
    for (const asset of ['USDT_TRON', 'TRX_TRON']) {
      await creditMerchant(c.db, systemClock, 'test', catalog, c.merchantId, { asset, amount: '1000', memo: 'seed' });
      for (const address of addresses)
        await addToWhitelist(c.db, systemClock, 'test', catalog, c.merchantId, { asset, address, delay: '0' });
    }
    c.devnet.control.fund({ address: c.hotAddress, asset: 'TRX_TRON', amount: 100_000_000_000n });
    c.devnet.control.fund({ address: c.hotAddress, asset: 'USDT_TRON', amount: 100_000_000_000n, mine: true });

    const a = await sa.start();
    await vi.waitFor(async () => expect(await c.holderPid()).toBe(a.pid), { timeout: 20_000, interval: 100 });
    const b = await sb.start();

    /**
     * One creation, as a merchant behind a load balancer makes it: a replica that dies under the
     * request (A, killed by its hook while the wave runs) drops the connection, and the same
     * request (same reference) goes to the next replica; the reference keeps it one payout.
     */
    const createPayout = async (body: Record<string, string>, i: number, via: Replica[]) => {
      for (let k = 0; ; k++) {
        const replica = via[(i + k) % via.length] as Replica;
        try {
          return await api(replica.url, '/v1/payouts', { key: c.apiKey, body });
        } catch (e) {
          // Only A dies under a request here; any other lost connection is a fault of its own.
          if (replica !== a || k + 1 >= via.length || !(e instanceof TypeError)) throw e;
        }
      }
    };

    /** `n` payouts over both live replicas, approved. */
    const wave = async (name: string, n: number, via: Replica[]): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const body = {
          reference: `${name}-${i}`,
          asset: i % 4 === 3 ? 'TRX_TRON' : 'USDT_TRON',
          to_address: addresses[i % addresses.length] as string,
          amount: `${1 + (i % 5)}.${i}`,
        };
        const r = await createPayout(body, i, via);
        expect([200, 202]).toContain(r.status);
        ids.push(r.body.payout_id as string);
        if (r.body.status === 'pending_review') await approvePayout(c.db, systemClock, 'test', r.body.payout_id);
      }
      return ids;
    };
    const statuses = async (ids: string[]) =>
      (await c.db.selectFrom('payouts').select(['id', 'status']).where('id', 'in', ids).execute()).map((r) => r.status);

    // Wave 1: the holder A stores its first signed payout and is killed before broadcasting it.
    const first = await wave('one', 8, [a, b]);
    await a.exited;
    expect(a.child.signalCode).toBe('SIGKILL');
    await vi.waitFor(async () => expect(await c.holderPid()).toBe(b.pid), { timeout: 30_000, interval: 100 });

    // Wave 2: B, the holder now, is stopped while payouts are in flight; C takes over.
    const cc = await sc.start();
    const second = await wave('two', 8, [b, cc]);
    await vi.waitFor(async () => expect(await statuses(second)).toContain('broadcast'), {
      timeout: 30_000,
      interval: 20,
    });
    b.child.kill('SIGSTOP');
    const inFlight = (await statuses([...first, ...second])).filter((s) => !FINAL.includes(s));
    expect(inFlight.length).toBeGreaterThan(0);
    await vi.waitFor(async () => expect(await c.holderPid()).toBe(cc.pid), { timeout: 30_000, interval: 100 });
    b.child.kill('SIGCONT');

    await vi.waitFor(
      async () => expect(new Set(await statuses([...first, ...second]))).toEqual(new Set(['confirmed'])),
      {
        timeout: 60_000,
        interval: 250,
      },
    );
    expect(await payoutsAgainstChain(c)).toEqual([]);
    expect(await ledgerProblems(c.db)).toEqual([]);
    await vi.waitFor(() => expect(logged(b, 'worker lease lost')).not.toEqual([]), { timeout: 30_000 });
    expect(b.child.exitCode).toBeNull(); // resumed as a replica that serves /v1 only
  }, 90_000);
});
