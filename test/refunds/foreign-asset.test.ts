/**
 * A payment in another token, refunded in that token, through the whole real app on the devnet
 * (watcher and payout worker running, wallet unlocked, the hot wallet holding USDC): 10 USDC sent
 * to a USDT invoice's address is credited after its fee and opens a `foreign_asset` exception; the
 * owner refunds it in USDC from the cabinet; the customer gives an
 * address on the claim link; the operator approves; the customer holds exactly the refund in USDC
 * on chain, the merchant's USDC balance fell by the refund and its fee, the USDT one did not move,
 * and the exception is resolved by the refund.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cabinetUrl } from '../../src/config.js';
import type { Devnet } from '../../src/devnet/index.js';
import { pageExceptions } from '../../src/exceptions/service.js';
import { setPayoutFee } from '../../src/fees/payout.js';
import { balance } from '../../src/ledger/service.js';
import { updateMerchantSettings } from '../../src/merchants/service.js';
import { createOwner } from '../../src/owners/service.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { createPayoutWorker } from '../../src/payouts/worker/worker.js';
import type { WorkerLease } from '../../src/runtime/lease.js';
import type { WorkerServices } from '../../src/services.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { api, type ApiRequest } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { fastClient, ledgerProblems, newKeystore, PASSPHRASE, startTestDevnet } from '../payouts/worker-fixture.js';

const PASSWORD = 'correct horse battery staple';
let devnet: Devnet;
let t: TestApp;
let hot: string;
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

beforeAll(async () => {
  devnet = await startTestDevnet();
  const ks = await newKeystore();
  hot = ks.hotAddress;
  t = await startTestApp({
    unlockWallet: true,
    chain: fastClient(devnet.url),
    env: { WALLET_KEYSTORE: ks.keystore, WALLET_PASSPHRASE: PASSPHRASE, TRON_FULL_NODE_URL: devnet.url },
    workerHost: {
      renewMs: 200,
      jobs: [],
      workers: (s: WorkerServices, lease: WorkerLease) => [
        chainWatcher(s, lease, { intervalMs: 20 }),
        createPayoutWorker(s, lease, { intervalMs: 30 }),
      ],
    },
  });
  devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 2_000_000_000n, mine: true });
  devnet.control.fund({ address: hot, asset: 'USDC_TRON', amount: 100_000_000n, mine: true });
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

/** An owner of the merchant, signed in to the cabinet: a request with its bearer token. */
async function ownerOf(merchantId: string) {
  const base = t.app.cabinetUrl as string;
  const email = `o-${Math.random().toString(36).slice(2)}@example.com`;
  const created = await createOwner(db(), t.clock, 'test', {
    email,
    merchantIds: [merchantId],
    cabinetUrl: cabinetUrl(t.app.config),
  });
  await api(base, '/cabinet/v1/account/setup', { body: { setup_token: created.setup_token, password: PASSWORD } });
  const token = (await api(base, '/cabinet/v1/sessions', { body: { email, password: PASSWORD } })).body.token;
  return (path: string, req: ApiRequest = {}) =>
    api(base, path, { ...req, headers: { authorization: `Bearer ${token}`, ...req.headers } });
}

describe('a foreign-asset deposit refunded in its own asset', () => {
  it('10 USDC to a USDT invoice: exception, refund in USDC, claimed, approved, sent; exactly that on chain', async () => {
    const { merchant, key } = await t.merchant({ name: 'Foreign shop' });
    const shop = merchant.merchant_id;
    const { clock, catalog } = t.app.services;
    await updateMerchantSettings(db(), clock, 'test', shop, { confirmations: 1 });
    await setPayoutFee(db(), clock, 'test', catalog, { asset: 'USDC_TRON', amount: '0.5', percent: '0' });
    const inv = (
      await api(t.url, '/v1/invoices', {
        key,
        body: { order_id: 'foreign-1', asset: 'USDT_TRON', amount: '10', expires_in: 3600 },
      })
    ).body;
    devnet.control.pay({ to: inv.address, asset: 'USDC_TRON', amount: 10_000_000n, mine: true });

    const owner = await ownerOf(shop);
    let exceptionId = '';
    await until(async () => {
      const open = (await owner(`/cabinet/v1/merchants/${shop}/exceptions?open=true`)).body.data;
      expect(open).toMatchObject([{ kind: 'foreign_asset', asset: 'USDC_TRON', invoice_id: inv.invoice_id }]);
      exceptionId = open[0].exception_id;
      expect((await balance(db(), shop, 'USDC_TRON')).balance).toBeGreaterThan(0n);
    });
    const credited = (await balance(db(), shop, 'USDC_TRON')).balance;
    const usdtBefore = await balance(db(), shop, 'USDT_TRON');

    const path = `/cabinet/v1/merchants/${shop}/invoices/${inv.invoice_id}/refunds`;
    // Nothing was credited in the invoice's own asset: a USDT refund is refused and changes nothing.
    const inUsdt = await owner(path, { body: { amount: '1' } });
    expect([inUsdt.status, inUsdt.body.error?.code]).toEqual([422, 'refund_exceeds_received']);
    // What the USDC credited is the most that goes back, less the payout fee kept available.
    const refundable = credited - 500_000n;
    const amount = `${refundable / 1_000_000n}.${(refundable % 1_000_000n).toString().padStart(6, '0')}`;
    const made = await owner(path, { body: { amount, asset: 'USDC_TRON', exception_id: exceptionId } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ asset: 'USDC_TRON', status: 'awaiting_address', fee: '0.5' });
    expect((await balance(db(), shop, 'USDC_TRON')).available).toBe(0n);

    const customer = newAddress();
    const claim = `/pay/v1/refunds/${made.body.refund_id}/address`;
    const given = await api(t.app.payUrl as string, claim, { body: { address: customer } });
    expect([given.status, given.body.status]).toEqual([201, 'requested']);
    const payoutId = (await owner(`/cabinet/v1/merchants/${shop}/refunds/${made.body.refund_id}`)).body.payout_id;
    const payout = await db().selectFrom('payouts').selectAll().where('id', '=', payoutId).executeTakeFirstOrThrow();
    expect([payout.asset, payout.to_address, payout.reference]).toEqual([
      'USDC_TRON',
      customer,
      `refund-${made.body.refund_id}`,
    ]);
    if (payout.status === 'pending_review') await approvePayout(db(), clock, 'test', payoutId);
    await until(async () => {
      const r = await owner(`/cabinet/v1/merchants/${shop}/refunds/${made.body.refund_id}`);
      expect(r.body.status).toBe('sent');
    });

    expect(devnet.control.balances(customer).tokens.USDC_TRON).toBe(refundable);
    expect(devnet.control.balances(customer).tokens.USDT_TRON ?? 0n).toBe(0n);
    expect((await balance(db(), shop, 'USDC_TRON')).balance).toBe(0n);
    expect(await balance(db(), shop, 'USDT_TRON')).toEqual(usdtBefore);
    const [resolved] = (await pageExceptions(db(), { merchant_id: shop })).data.filter(
      (e) => e.exception_id === exceptionId,
    );
    expect(resolved?.resolution).toMatchObject({
      refund_id: made.body.refund_id,
      note: expect.stringContaining('sent'),
    });
    expect(resolved?.resolved_at).not.toBeNull();
    expect(await ledgerProblems(db())).toEqual([]);
  });
});
