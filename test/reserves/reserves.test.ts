/**
 * The reserves check on the devnet after a full flow through the real app (watcher, sweeper and
 * payout worker running, wallet unlocked): an invoice paid and settled, a standalone TRX deposit,
 * the deposit address swept into the hot wallet, a payout confirmed. Every figure is exact to the
 * base unit: the tokens balance to a difference of 0, TRX to exactly what the operator put in the
 * hot wallet for fees. Then a transfer out of the hot wallet behind the service's back shows as a
 * shortfall of exactly its amount: the check's error log, the metrics and the /readyz detail.
 */
import { Writable } from 'node:stream';
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import type { ManualClock } from '../../src/clock.js';
import type { Devnet } from '../../src/devnet/index.js';
import { setPayoutFee } from '../../src/fees/payout.js';
import { setServiceFee } from '../../src/fees/service.js';
import { balance } from '../../src/ledger/service.js';
import { createLogger } from '../../src/logger.js';
import { updateMerchantSettings } from '../../src/merchants/service.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { createPayoutWorker } from '../../src/payouts/worker/worker.js';
import { runReservesCheck } from '../../src/reserves/operations.js';
import { checkReserves, type AssetReserves } from '../../src/reserves/service.js';
import type { WorkerLease } from '../../src/runtime/lease.js';
import type { WorkerServices } from '../../src/services.js';
import { sweeperWorker } from '../../src/sweeper/worker.js';
import { hotWalletPrivateKey } from '../../src/wallet/hd.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { issueOperatorToken } from '../../src/operators/service.js';
import { startTestApp, TEST_HASH_COST, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { fastClient, newKeystore, PASSPHRASE, startTestDevnet } from '../payouts/worker-fixture.js';

const TRX = 1_000_000n;
const FUNDING = 2_000n * TRX;

let devnet: Devnet;
let t: TestApp;
let hot: string;
let mnemonic: string;
let logs = '';
const db = () => t.app.services.db;

/** Mines a block at a time (waking the workers) until `check` passes. */
async function until(check: () => Promise<void>, timeout = 30_000): Promise<void> {
  await vi.waitFor(
    async () => {
      devnet.control.mine(1);
      for (const w of t.app.workers?.workers ?? []) t.app.workers?.wake(w);
      await check();
    },
    { timeout, interval: 40 },
  );
}

const reserves = () =>
  checkReserves({
    db: db(),
    chain: t.app.services.chain,
    catalog: t.app.services.catalog,
    clock: t.clock,
    network: 'devnet',
  });
const of = (assets: AssetReserves[], code: string) => assets.find((a) => a.asset === code)!;
const trx = (sun: bigint) => {
  const s = sun.toString().padStart(7, '0');
  return `${s.slice(0, -6)}.${s.slice(-6)}`.replace(/\.?0+$/, '');
};

/** TRX the chain burned for every transaction the hot wallet or a deposit address signed (from receipts). */
async function burnedByService(addresses: string[]): Promise<bigint> {
  const chain = t.app.services.chain;
  let burned = 0n;
  for (const b of devnet.control.chain.blocks) {
    for (const tx of b.txs) {
      const owner = (tx.tx.raw_data.contract[0]?.parameter.value as { owner_address?: string }).owner_address;
      if (!owner || !addresses.includes(owner.toLowerCase())) continue;
      burned += (await chain.getTransactionInfo(tx.tx.txID))?.fee ?? 0n;
    }
  }
  return burned;
}

beforeAll(async () => {
  devnet = await startTestDevnet();
  const ks = await newKeystore();
  hot = ks.hotAddress;
  mnemonic = ks.mnemonic;
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs += String(chunk);
      cb();
    },
  });
  t = await startTestApp({
    unlockWallet: true,
    chain: fastClient(devnet.url),
    logger: createLogger('info', sink),
    env: { WALLET_KEYSTORE: ks.keystore, WALLET_PASSPHRASE: PASSPHRASE, TRON_FULL_NODE_URL: devnet.url },
    admin: { probe: { timeoutMs: 1_000, headTtlMs: 0, balanceTtlMs: 0 } },
    workerHost: {
      renewMs: 200,
      jobs: [],
      workers: (s: WorkerServices, lease: WorkerLease) => [
        chainWatcher(s, lease, { intervalMs: 20 }),
        ...sweeperWorker(s, lease, { intervalMs: 50 }),
        createPayoutWorker(s, lease, { intervalMs: 30 }),
      ],
    },
  });
  devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: FUNDING, mine: true });
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

describe('reserves after a full flow on the devnet', () => {
  let shopId: string;
  let key: string;

  it('balances every figure to the base unit: tokens to 0, TRX to the operator funding', async () => {
    const { merchant, key: k } = await t.merchant({ name: 'Reserves shop' });
    shopId = merchant.merchant_id;
    key = k;
    const { clock, catalog } = t.app.services;
    await setServiceFee(db(), clock, 'test', shopId, { percent: '1', payer: 'merchant' });
    await updateMerchantSettings(db(), clock, 'test', shopId, { confirmations: 1 });
    await setPayoutFee(db(), clock, 'test', catalog, { asset: 'USDT_TRON', amount: '1', percent: '0' });

    // An invoice of 100 USDT, paid and settled; 50 TRX to its address: a standalone deposit.
    const inv = (
      await api(t.url, '/v1/invoices', {
        key,
        body: { order_id: 'reserves-1', asset: 'USDT_TRON', amount: '100', expires_in: 3600 },
      })
    ).body;
    devnet.control.pay({ to: inv.address, asset: 'USDT_TRON', amount: 100_000_000n, mine: true });
    devnet.control.pay({ to: inv.address, asset: 'TRX_TRON', amount: 50n * TRX, mine: true });
    await until(async () => {
      const got = (await api(t.url, `/v1/invoices/${inv.invoice_id}`, { key })).body;
      expect(got.status).toBe('settled');
      expect((await balance(db(), shopId, 'TRX_TRON')).balance).toBe(49_500_000n);
    });
    // The sweeper moves the tokens (and the TRX) into the hot wallet.
    await until(async () => {
      expect(devnet.control.balances(inv.address).tokens.USDT_TRON).toBe(0n);
      const open = await db().selectFrom('sweeps').select('id').where('status', '=', 'open').execute();
      expect(open).toEqual([]);
    });
    // A payout of 30 USDT (fee 1), confirmed on chain.
    const to = newAddress();
    await addToWhitelist(db(), clock, 'test', catalog, shopId, { asset: 'USDT_TRON', address: to, delay: '0' });
    const p = await api(t.url, '/v1/payouts', {
      key,
      body: { reference: 'reserves-payout', asset: 'USDT_TRON', to_address: to, amount: '30' },
    });
    if (p.body.status === 'pending_review') await approvePayout(db(), clock, 'test', p.body.payout_id);
    await until(async () => {
      const row = await db().selectFrom('payouts').selectAll().where('id', '=', p.body.payout_id).executeTakeFirst();
      expect(row?.status).toBe('confirmed');
    });
    expect(devnet.control.balances(to).tokens.USDT_TRON).toBe(30_000_000n);
    // 5 USDT seen at another shop's invoice, far from its confirmations: owed, not yet credited.
    const slow = await t.merchant({ name: 'Slow shop' });
    await updateMerchantSettings(db(), clock, 'test', slow.merchant.merchant_id, { confirmations: 1000 });
    const pending = (
      await api(t.url, '/v1/invoices', {
        key: slow.key,
        body: { order_id: 'reserves-2', asset: 'USDT_TRON', amount: '5', expires_in: 3600 },
      })
    ).body;
    devnet.control.pay({ to: pending.address, asset: 'USDT_TRON', amount: 5_000_000n, mine: true });
    await until(async () => {
      const got = (await api(t.url, `/v1/invoices/${pending.invoice_id}`, { key: slow.key })).body;
      expect(got.amount_received).toBe('5');
    });

    const report = await reserves();
    expect(report.covered).toBe(true);
    const usdt = of(report.assets, 'USDT_TRON');
    expect(usdt).toEqual({
      asset: 'USDT_TRON',
      holdings: {
        hot_wallet: '70',
        hot_wallet_staked: '0',
        deposit_addresses: '5',
        unattributed_addresses: '0',
        total: '75',
      },
      liabilities: { merchant_balances: '68', uncredited_deposits: '5', unattributed_deposits: '0', total: '73' },
      earned: { receive_fees: '1', payout_fees: '1', network_costs: '0', total: '2' },
      in_flight_payouts: '0',
      expected: '75',
      difference: '0',
      uncovered: '0',
      covered: true,
    });
    // TRX: what the chain shows, to the sun; the difference is exactly the operator's funding.
    const chainTrx = devnet.control.balances(hot).trx;
    const atAddress = devnet.control.balances(inv.address).trx;
    const burned = await burnedByService([hot, inv.address].map((a) => TronWeb.address.toHex(a).toLowerCase()));
    const x = of(report.assets, 'TRX_TRON');
    expect(x.holdings).toMatchObject({ hot_wallet: trx(chainTrx), deposit_addresses: trx(atAddress) });
    expect(x.liabilities.merchant_balances).toBe('49.5');
    expect(x.earned).toMatchObject({ receive_fees: '0.5', network_costs: trx(burned) });
    expect(burned).toBeGreaterThan(0n);
    expect(x.difference).toBe(trx(FUNDING));
    expect(report.addresses_read).toBeGreaterThan(0);
  });

  it('shows a transfer out of the hot wallet behind the service’s back as a shortfall of exactly that amount, and alerts', async () => {
    const stolen = 50_000_000n;
    const chain = createTronClient({ fullHost: devnet.url });
    const thief = newAddress();
    const usdt = t.app.services.catalog.get('USDT_TRON')!;
    const tx = await chain.buildTrc20Transfer({
      contract: usdt.contract!,
      from: hot,
      to: thief,
      amount: stolen,
      feeLimit: 100_000_000n,
    });
    const sent = await chain.broadcast(await chain.sign(tx, hotWalletPrivateKey(mnemonic)));
    expect(sent.ok).toBe(true);
    devnet.control.mine(1);
    await chain.close?.();
    expect(devnet.control.balances(thief).tokens.USDT_TRON).toBe(stolen);

    logs = '';
    (t.clock as ManualClock).advance(60_000);
    await runReservesCheck(t.app.services);
    const [row] = await db()
      .selectFrom('reserve_checks')
      .selectAll()
      .where('asset', '=', 'USDT_TRON')
      .orderBy('checked_at', 'desc')
      .limit(1)
      .execute();
    const figures = JSON.parse(row!.figures) as AssetReserves;
    expect(figures).toMatchObject({
      holdings: { total: '25' },
      liabilities: { total: '73' },
      expected: '75',
      difference: '-50',
      uncovered: '48',
      covered: false,
    });
    expect(row!.covered).toBe(0);
    const line = logs.split('\n').find((l) => l.includes('holdings below liabilities'));
    expect(JSON.parse(line!)).toMatchObject({ level: 50, asset: 'USDT_TRON', uncovered: '48' });

    const metrics = await (await fetch(`${t.app.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/^paygate_reserves_difference\{asset="USDT_TRON"\} -50$/m);
    expect(metrics).toMatch(/^paygate_reserves_uncovered\{asset="USDT_TRON"\} 48$/m);
    expect(metrics).toMatch(/^paygate_reserves_covered\{asset="USDT_TRON"\} 0$/m);
    expect(metrics).toMatch(/^paygate_reserves_covered\{asset="TRX_TRON"\} 1$/m);
    expect(metrics).toMatch(/^paygate_reserves_checked_timestamp_seconds \d+/m);
    const ready = await api(t.app.adminUrl!, '/readyz');
    expect(ready.body.checks.reserves).toMatchObject({
      ok: true,
      covered: false,
      alert: 'holdings below liabilities',
      uncovered: { USDT_TRON: '48' },
    });
  });

  it('`paygate reserves --json` prints the same check', async () => {
    const r = await runCli(['reserves', '--json'], {
      DATABASE_URL: t.app.config.databaseUrl,
      TRON_NETWORK: 'devnet',
      TRON_FULL_NODE_URL: devnet.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.covered).toBe(false);
    expect(of(r.json.assets, 'USDT_TRON')).toMatchObject({ difference: '-50', uncovered: '48' });
  });

  it('GET /admin/v1/reserves answers the same check on the operator console', async () => {
    const { token } = await issueOperatorToken(db(), t.clock, 'cli:test', 'reserves', TEST_HASH_COST);
    const r = await api(t.app.adminUrl as string, '/admin/v1/reserves', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.covered).toBe(false);
    expect(of(r.body.assets, 'USDT_TRON')).toMatchObject({ difference: '-50', uncovered: '48' });
    expect(r.body).toEqual({ ...(await reserves()), checked_at: r.body.checked_at });
  });
});
