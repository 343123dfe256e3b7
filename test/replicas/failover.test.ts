/**
 * Failover of the background work between two `serve` replicas on PostgreSQL
 * (docs/adr/0049-the-lease-across-hosts.md): exactly one holds the worker lease and runs the
 * background work (here: the chain watcher settling a paid invoice); SIGKILLed, the other takes
 * the lease once the dead holder's grant lapses (WORKER_LEASE_TTL) and carries the work on.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { currentLease } from '../../src/runtime/lease.js';
import { api } from '../helpers/http.js';
import { holdsLease, LEASE_TTL_MS, logged, startCluster, type Cluster, type Replica } from './harness.js';

let cluster: Cluster | undefined;
afterAll(() => cluster?.close(), 60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An invoice created on `r`, paid on chain; resolves once the API says it settled. */
async function paidAndSettled(c: Cluster, r: Replica, orderId: string): Promise<void> {
  const created = await api(r.url, '/v1/invoices', {
    key: c.apiKey,
    body: { order_id: orderId, asset: 'USDT_TRON', amount: '5', expires_in: 3600 },
  });
  expect(created.status).toBe(201);
  c.devnet.control.pay({ to: created.body.address, asset: 'USDT_TRON', amount: 5_000_000n });
  await vi.waitFor(
    async () =>
      expect((await api(r.url, `/v1/invoices/${created.body.invoice_id}`, { key: c.apiKey })).body.status).toBe(
        'settled',
      ),
    { timeout: 30_000, interval: 250 },
  );
}

describe('failover between two replicas', () => {
  it('one replica holds the lease and runs the background work; SIGKILLed, the other takes it over once its grant lapses', async () => {
    cluster = await startCluster();
    const c = cluster;
    const [sa, sb] = [c.spawn('a'), c.spawn('b')];
    const a = await sa.start();
    await vi.waitFor(async () => expect(await c.holderPid()).toBe(a.pid), { timeout: 20_000, interval: 100 });
    const b = await sb.start();

    // Over several lease periods: A holds it, B does not, by the row and by each process's own word.
    for (let i = 0; i < 4; i++) {
      expect(await c.holderPid()).toBe(a.pid);
      expect([await holdsLease(a), await holdsLease(b)]).toEqual([true, false]);
      await sleep(LEASE_TTL_MS / 2);
    }
    await paidAndSettled(c, b, 'before-failover');
    expect(logged(b, 'worker lease acquired')).toEqual([]);

    const last = await currentLease(c.db);
    a.child.kill('SIGKILL');
    await a.exited;
    await vi.waitFor(async () => expect(await c.holderPid()).toBe(b.pid), { timeout: 30_000, interval: 100 });
    expect(await holdsLease(b)).toBe(true);
    expect(logged(b, 'worker lease acquired; background work started')).toHaveLength(1);
    // Never before the dead holder's grant lapsed (by the server's clock), and with a new token.
    const now = await currentLease(c.db);
    expect(now!.token).toBe(last!.token + 1);
    expect(now!.acquired_at >= last!.expires_at).toBe(true);

    // The background work goes on in B: a payment made after the kill is seen and settled.
    await paidAndSettled(c, b, 'after-failover');
  }, 90_000);
});
