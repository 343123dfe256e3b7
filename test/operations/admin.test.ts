/**
 * The admin listener of a real app in front of the devnet: /healthz, /readyz (database, node,
 * watcher lag), /metrics (requests, deposits, payouts, hot wallet, lease, feature sources), and
 * none of them on the public listener.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { issueOperatorToken } from '../../src/operators/service.js';
import { operations, registerMetricSource, registerWatcherProgress } from '../../src/operations/registry.js';
import { initWallet, walletSummary } from '../../src/wallet/service.js';
import { startTestApp, TEST_HASH_COST, type TestApp } from '../helpers/app.js';
import { api, isErrorBody, rawRequest } from '../helpers/http.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE, newInvoice } from '../invoices/fixture.js';
import { ManualClock } from '../../src/clock.js';

/** One sample line of the Prometheus text, e.g. value(text, 'paygate_payouts{status="queued"}'). */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('admin listener', () => {
  let devnet: Devnet;
  let t: TestApp;
  let admin: string;

  // A feature's source (as webhooks or the sweeper will register): read at scrape time; a failing one is skipped.
  registerMetricSource({
    name: 'paygate_test_merchants',
    help: 'Merchants (test source)',
    collect: async (s) => [{ value: (await s.db.selectFrom('merchants').select('id').execute()).length }],
  });
  registerMetricSource({
    name: 'paygate_test_broken',
    help: 'A source that fails',
    collect: async () => {
      throw new Error('table missing');
    },
  });

  beforeAll(async () => {
    devnet = await startDevnet({ blockTimeMs: 0, clock: new ManualClock() });
    devnet.control.mine(5);
    t = await startTestApp({
      clock: new ManualClock(new Date()),
      env: { WALLET_PASSPHRASE: TEST_PASSPHRASE, TRON_FULL_NODE_URL: devnet.url },
      workerHost: { workers: () => [], jobs: [], renewMs: 50 },
      admin: { probe: { timeoutMs: 300, headTtlMs: 0, balanceTtlMs: 0 } },
    });
    await initWallet(t.app.services.db, t.clock, 'test', t.app.config, {
      mnemonic: TEST_MNEMONIC,
      scrypt: CHEAP_SCRYPT,
    });
    admin = t.app.adminUrl as string;
  });
  afterAll(async () => {
    operations.watcherProgress = null;
    await t?.close();
    await devnet?.close();
  });

  it('listens on its own loopback port, apart from the public one', () => {
    expect(admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(admin).port).not.toBe(new URL(t.url).port);
  });

  it('answers /healthz while the process is up', async () => {
    const r = await api(admin, '/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });

  it('is ready with the database and the node reachable; the watcher lag is unknown until the watcher reports', async () => {
    const r = await api(admin, '/readyz');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ready');
    expect(r.body.checks.database.ok).toBe(true);
    expect(r.body.checks.node).toEqual({ ok: true, head_block: devnet.control.info().head.number });
    expect(r.body.checks.watcher).toMatchObject({ ok: null, lag_blocks: null });
    // Unknown is no sample at all, never a made-up 0.
    expect((await api(admin, '/metrics')).text).not.toMatch(/^paygate_watcher_lag_blocks /m);
  });

  it('is not ready when the watcher lags more than the bound, and ready again once it catches up', async () => {
    let scanned = 0;
    registerWatcherProgress(async () => scanned);
    try {
      devnet.control.mine(150);
      const head = devnet.control.info().head.number;
      const behind = await api(admin, '/readyz');
      expect(behind.status).toBe(503);
      expect(behind.body.checks.watcher).toMatchObject({ ok: false, lag_blocks: head, max_lag_blocks: 100 });
      expect(value((await api(admin, '/metrics')).text, 'paygate_watcher_lag_blocks')).toBe(head);
      scanned = head - 5;
      const caughtUp = await api(admin, '/readyz');
      expect(caughtUp.status).toBe(200);
      expect(caughtUp.body.checks.watcher).toMatchObject({ ok: true, lag_blocks: 5 });
    } finally {
      operations.watcherProgress = null;
    }
  });

  it('is not ready while the node fails or hangs (bounded by the probe timeout)', async () => {
    const fault = devnet.control.addFault({ kind: 'hang', path: '/wallet/getnowblock' });
    try {
      const r = await api(admin, '/readyz');
      expect(r.status).toBe(503);
      expect(r.body.status).toBe('not_ready');
      expect(r.body.checks.node.ok).toBe(false);
      expect(r.body.checks.node.error).toMatch(/no answer within 300 ms/);
      expect(r.body.checks.database.ok).toBe(true);
    } finally {
      devnet.control.clearFaults(fault.id);
    }
    await vi.waitFor(async () => expect((await api(admin, '/readyz')).status).toBe(200));
  });

  it('counts /v1 requests and their latency by route template and status, under listener v1', async () => {
    const { key } = await t.merchant();
    const created = await api(t.url, '/v1/invoices', { key, body: newInvoice() });
    expect(created.status).toBe(201);
    await api(t.url, `/v1/invoices/${created.body.invoice_id}`, { key });
    await api(t.url, `/v1/invoices/${created.body.invoice_id}`, { key });
    await api(t.url, `/v1/invoices/${randomUUID()}`, { key });
    await api(t.url, '/v1/nothing-here');
    const m = await api(admin, '/metrics');
    expect(m.status).toBe(200);
    expect(m.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(
      value(m.text, 'paygate_http_requests_total{listener="v1",method="POST",route="/v1/invoices",status="201"}'),
    ).toBe(1);
    expect(
      value(m.text, 'paygate_http_requests_total{listener="v1",method="GET",route="/v1/invoices/:id",status="200"}'),
    ).toBe(2);
    expect(
      value(m.text, 'paygate_http_requests_total{listener="v1",method="GET",route="/v1/invoices/:id",status="404"}'),
    ).toBe(1);
    expect(
      value(m.text, 'paygate_http_requests_total{listener="v1",method="GET",route="unmatched",status="404"}'),
    ).toBe(1);
    expect(
      value(
        m.text,
        'paygate_http_request_duration_seconds_count{listener="v1",method="POST",route="/v1/invoices",status="201"}',
      ),
    ).toBe(1);
    expect(
      value(
        m.text,
        'paygate_http_request_duration_seconds_bucket{le="+Inf",listener="v1",method="POST",route="/v1/invoices",status="201"}',
      ),
    ).toBe(1);
    expect(value(m.text, 'paygate_invoices{status="created"}')).toBe(1);
    // The count is copied from the histogram at each scrape: later scrapes, several at once or one
    // after another, report the same count, not a sum of scrapes.
    const scrapes = await Promise.all([api(admin, '/metrics'), api(admin, '/metrics'), api(admin, '/metrics')]);
    for (const s of [...scrapes, await api(admin, '/metrics')]) {
      expect(
        value(s.text, 'paygate_http_requests_total{listener="v1",method="POST",route="/v1/invoices",status="201"}'),
      ).toBe(1);
    }
  });

  it('counts the requests of every listener, each under its listener label', async () => {
    expect((await api(t.app.cabinetUrl as string, '/cabinet/v1/merchants')).status).toBe(401);
    expect((await api(t.app.payUrl as string, '/pay/v1/nothing-here')).status).toBe(404);
    expect((await api(admin, '/admin/v1/merchants')).status).toBe(401);
    expect((await api(admin, '/healthz')).status).toBe(200);
    const m = await api(admin, '/metrics');
    const count = (labels: string) => value(m.text, `paygate_http_requests_total{${labels}}`);
    expect(count('listener="cabinet",method="GET",route="/cabinet/v1/merchants",status="401"')).toBe(1);
    expect(count('listener="pay",method="GET",route="unmatched",status="404"')).toBe(1);
    expect(count('listener="admin",method="GET",route="/admin/v1/merchants",status="401"')).toBe(1);
    expect(count('listener="admin",method="GET",route="/healthz",status="200"')).toBeGreaterThanOrEqual(1);
    expect(
      value(
        m.text,
        'paygate_http_request_duration_seconds_count{listener="cabinet",method="GET",route="/cabinet/v1/merchants",status="401"}',
      ),
    ).toBe(1);
  });

  it('reports deposits and payouts by status, the payout queue, the hot wallet and the worker lease from live state', async () => {
    const { merchant } = await t.merchant();
    const now = new Date().toISOString();
    const deposit = (status: 'seen' | 'confirmed', n: number) => ({
      id: randomUUID(),
      merchant_id: merchant.merchant_id,
      address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
      asset: 'USDT_TRON',
      decimals: 6,
      amount: '1000000',
      tx_hash: `${n}`.padStart(64, '0'),
      log_index: 0,
      from_address: null,
      block_number: n,
      block_hash: 'ab'.repeat(32),
      block_time: now,
      invoice_id: null,
      external_user_id: null,
      late: 0,
      status,
      confirmations: 1,
      final: 0,
      credited_at: null,
      created_at: now,
      updated_at: now,
    });
    await t.app.services.db
      .insertInto('deposits')
      .values([deposit('seen', 1), deposit('seen', 2), deposit('confirmed', 3)])
      .execute();
    const hot = (await walletSummary(t.app.services.db)).hot_address;
    devnet.control.fund({ address: hot, asset: 'USDT_TRON', amount: 250_500_000n, mine: true });
    devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 1_000_000n, mine: true });
    await vi.waitFor(() => expect(t.app.workers?.active()).toBe(true));

    const m = (await api(admin, '/metrics')).text;
    expect(value(m, 'paygate_deposits{status="seen"}')).toBe(2);
    expect(value(m, 'paygate_deposits{status="confirmed"}')).toBe(1);
    expect(value(m, 'paygate_payouts_queued')).toBe(0);
    expect(value(m, 'paygate_hot_wallet_balance{asset="USDT_TRON"}')).toBe(250.5);
    expect(value(m, 'paygate_hot_wallet_balance{asset="TRX_TRON"}')).toBe(1);
    expect(value(m, `paygate_worker_lease_holder{holder="${t.app.workers?.lease.holder}"}`)).toBe(1);
    expect(value(m, 'paygate_worker_lease_held')).toBe(1);
    // Registered feature sources: read at scrape time; a failing one leaves only its own metric empty.
    expect(value(m, 'paygate_test_merchants')).toBe(2);
    expect(m).toContain('# HELP paygate_test_broken');
    expect(m).not.toMatch(/^paygate_test_broken /m);
    expect(m).toMatch(/^paygate_process_resident_memory_bytes /m);
  });

  it('answers 404 for anything else on the admin port', async () => {
    const r = await api(admin, '/v1/invoices');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('route_not_found');
  });

  it('answers with the conventions every listener shares, and the rate headers of its own per-IP limit', async () => {
    const remaining: Record<string, number> = {};
    for (const path of ['/healthz', '/admin/v1/openapi.json', '/admin/v1/merchants', '/nowhere', '/metrics']) {
      const r = await api(admin, path, { headers: { 'x-request-id': 'adm-1' } });
      expect(r.headers.get('x-request-id'), path).toBe('adm-1');
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(r.headers.get('content-security-policy'), path).toContain("default-src 'none'");
      expect(r.headers.get('x-ratelimit-limit'), path).toBe('600');
      remaining[path] = Number(r.headers.get('x-ratelimit-remaining'));
    }
    // The console's requests count (a 404 included); the probes are shown the count but not counted.
    expect(remaining['/admin/v1/merchants']).toBe((remaining['/admin/v1/openapi.json'] as number) - 1);
    expect(remaining['/nowhere']).toBe((remaining['/admin/v1/merchants'] as number) - 1);
    expect(remaining['/metrics']).toBe(remaining['/nowhere']);
    // An upper-case id names the same record on the console as on /v1 and the cabinet.
    const { merchant } = await t.merchant();
    const token = await issueOperatorToken(t.app.services.db, t.clock, 'test', 'conventions', TEST_HASH_COST);
    const shown = await api(admin, `/admin/v1/merchants/${merchant.merchant_id.toUpperCase()}`, {
      headers: { authorization: `Bearer ${token.token}` },
    });
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.merchant_id).toBe(merchant.merchant_id);
    // Node's own refusal of an unsupported expectation is answered in the error shape here too.
    const raw = await rawRequest(
      admin,
      'GET /healthz HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nX-Request-Id: adm-2\r\nConnection: close\r\n\r\n',
    );
    expect(raw).toMatch(/^HTTP\/1\.1 417 /);
    expect(raw.toLowerCase()).toContain('x-request-id: adm-2');
    expect(isErrorBody(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)))).toBe(true);
  });

  it('never serves /healthz, /readyz or /metrics on the public listener', async () => {
    for (const p of ['/healthz', '/readyz', '/metrics', '/v1/healthz', '/v1/metrics']) {
      const r = await api(t.url, p);
      expect(r.status, p).toBe(404);
      expect(r.body.error.code, p).toBe('route_not_found');
    }
  });
});
