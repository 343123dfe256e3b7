/**
 * Two `serve` replicas on one PostgreSQL database answer /v1 as one service: concurrent creations
 * of one order or one payout reference spread over both make one record, every answer that
 * record; and what an operator changes through one replica or the CLI (a key revoked, a merchant
 * disabled, a payout halt, a fee) holds on the other at its very next request: none of it is
 * kept in a process's memory (docs/reliability.md, "Replicas").
 */
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { keyIdOf } from '../../src/keys/format.js';
import { issueOperatorToken } from '../../src/operators/service.js';
import { TEST_HASH_COST } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { payoutDestination, startCluster, type Cluster, type Replica } from './harness.js';

let cluster: Cluster;
let a: Replica;
let b: Replica;
let operator: string;

beforeAll(async () => {
  cluster = await startCluster();
  const [sa, sb] = [cluster.spawn('a'), cluster.spawn('b')];
  operator = (await issueOperatorToken(cluster.db, systemClock, 'test', 'replicas test', TEST_HASH_COST)).token;
  a = await sa.start();
  b = await sb.start();
}, 120_000);
afterAll(() => cluster?.close(), 60_000);

/** The operator console of a replica. */
const admin = (r: Replica, path: string, body?: unknown, method?: string) =>
  api(r.adminUrl, path, { headers: { authorization: `Bearer ${operator}` }, body, method });

/** A request any accepted key answers 404 (no such invoice): 401 or 403 when the key is refused. */
const probe = (r: Replica, key: string) => api(r.url, '/v1/invoices/00000000-0000-4000-8000-000000000000', { key });

/** `n` requests at once, alternating between the replicas. */
const spread = <T>(n: number, send: (r: Replica, i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => send(i % 2 === 0 ? a : b, i)));

describe('idempotency across replicas', () => {
  it('20 identical invoice creations at once over both replicas make one invoice; every answer is it', async () => {
    const body = { order_id: 'order-replicas-1', asset: 'USDT_TRON', amount: '12.5', expires_in: 3600 };
    const answers = await spread(20, (r) => api(r.url, '/v1/invoices', { key: cluster.apiKey, body }));
    expect(answers.filter((x) => x.status === 201)).toHaveLength(1);
    expect(answers.filter((x) => x.status === 200)).toHaveLength(19);
    const first = answers.find((x) => x.status === 201)!.body;
    for (const x of answers) expect(x.body).toEqual(first);
    const rows = await cluster.db.selectFrom('invoices').select('id').where('order_id', '=', body.order_id).execute();
    expect(rows.map((r) => r.id)).toEqual([first.invoice_id]);
    // One deposit address handed out, the invoice's.
    const addresses = await cluster.db.selectFrom('deposit_addresses').select('address').execute();
    expect(addresses.map((x) => x.address)).toEqual([first.address]);
  }, 60_000);

  it('20 identical payout requests at once over both replicas make one payout and reserve its amount once', async () => {
    const to = await payoutDestination(cluster);
    // Held for review, so that no worker moves it while the answers are compared.
    const limit = await admin(
      a,
      `/admin/v1/merchants/${cluster.merchantId}`,
      { payout_auto_approve_limit: '1' },
      'PATCH',
    );
    expect(limit.status).toBe(200);
    const body = { reference: 'ref-replicas-1', asset: 'USDT_TRON', to_address: to, amount: '7' };
    const answers = await spread(20, (r) => api(r.url, '/v1/payouts', { key: cluster.apiKey, body }));
    expect(answers.filter((x) => x.status === 202)).toHaveLength(1);
    expect(answers.filter((x) => x.status === 200)).toHaveLength(19);
    const first = answers.find((x) => x.status === 202)!.body;
    for (const x of answers) expect(x.body).toEqual(first);
    expect(first.status).toBe('pending_review');
    const entries = await cluster.db
      .selectFrom('ledger_entries')
      .select('kind')
      .where('payout_id', '=', first.payout_id)
      .execute();
    expect(entries.map((e) => e.kind)).toEqual(['reserve']);
  }, 60_000);
});

describe('an operator change through one replica holds on the other at its next request', () => {
  it('a key revoked on replica A is refused by replica B', async () => {
    const key = await cluster.secondKey();
    expect((await probe(b, key)).status).toBe(404);
    const revoked = await admin(
      a,
      `/admin/v1/merchants/${cluster.merchantId}/keys/${keyIdOf(key)}`,
      undefined,
      'DELETE',
    );
    expect(revoked.status).toBe(200);
    const after = await probe(b, key);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');
  });

  it('a merchant disabled on replica A is refused by replica B, and enabled on B is served by A', async () => {
    expect((await admin(a, `/admin/v1/merchants/${cluster.merchantId}/disable`, {})).status).toBe(200);
    const refused = await probe(b, cluster.apiKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('merchant_disabled');
    expect((await admin(b, `/admin/v1/merchants/${cluster.merchantId}/enable`, {})).status).toBe(200);
    expect((await probe(a, cluster.apiKey)).status).toBe(404);
  });

  it('a payout halt by the CLI holds on both replicas, and so does its lifting', async () => {
    const env = { DATABASE_URL: cluster.url, TRON_NETWORK: 'devnet' };
    const body = (reference: string) => ({
      reference,
      asset: 'USDT_TRON',
      to_address: TronWeb.address.fromPrivateKey(randomBytes(32).toString('hex')) as string,
      amount: '1',
    });
    expect((await runCli(['payout', 'halt'], env)).code).toBe(0);
    for (const r of [a, b]) {
      const x = await api(r.url, '/v1/payouts', { key: cluster.apiKey, body: body(`halted-${r.name}`) });
      expect(x.status).toBe(503);
      expect(x.body.error.code).toBe('payouts_halted');
    }
    expect((await runCli(['payout', 'resume'], env)).code).toBe(0);
    // Taken again: refused now for its own reason (the address is not whitelisted), not the halt.
    const x = await api(b.url, '/v1/payouts', { key: cluster.apiKey, body: body('resumed') });
    expect(x.body.error.code).not.toBe('payouts_halted');
  }, 60_000);

  it('a service fee set on replica A is in the next invoice replica B creates', async () => {
    const set = await admin(a, `/admin/v1/merchants/${cluster.merchantId}/service-fees`, {
      percent: '2.5',
      payer: 'customer',
    });
    expect(set.status).toBe(201);
    const invoice = await api(b.url, '/v1/invoices', {
      key: cluster.apiKey,
      body: { order_id: 'order-after-fee', asset: 'USDT_TRON', amount: '100', expires_in: 3600 },
    });
    expect(invoice.status).toBe(201);
    expect(invoice.body.fees.service).toMatchObject({ percent: '2.5', payer: 'customer', amount: '2.5' });
    expect(invoice.body.amount_expected).toBe('102.5');
  });
});
