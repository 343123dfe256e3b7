/**
 * One payout never blocks the others: a payout whose transaction the node refuses to prepare (its
 * energy estimate reverts: the token contract refuses the recipient) waits with its own reason,
 * shown in `payout list`, and the payouts behind it are sent. Only a node that is down ends the
 * pass (and nothing is lost by it).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Devnet } from '../../src/devnet/index.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { approvePayout, cancelPayout } from '../../src/payouts/operator.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { newAddress } from './fixture.js';
import { ledgerProblems, startTestDevnet, successfulTransfersTo, workerAppOptions } from './worker-fixture.js';

let devnet: Devnet;
let t: TestApp;
let hot: string;
const db = () => t.app.services.db;

beforeAll(async () => {
  devnet = await startTestDevnet();
  const w = await workerAppOptions(devnet);
  hot = w.hotAddress;
  t = await startTestApp(w.options);
  devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 5_000_000_000n, mine: true });
  devnet.control.fund({ address: hot, asset: 'USDT_TRON', amount: 1_000_000_000n, mine: true });
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

async function merchantPaying(addresses: string[]) {
  const { merchant, key } = await t.merchant();
  await creditMerchant(db(), t.clock, 'test', t.app.services.catalog, merchant.merchant_id, {
    asset: 'USDT_TRON',
    amount: '1000',
    memo: 'opening balance',
  });
  for (const address of addresses)
    await addToWhitelist(db(), t.clock, 'test', t.app.services.catalog, merchant.merchant_id, {
      asset: 'USDT_TRON',
      address,
      delay: '0',
    });
  return key;
}

async function request(key: string, to: string, amount: string) {
  const r = await api(t.url, '/v1/payouts', {
    key,
    body: { reference: `r-${Math.random()}`, asset: 'USDT_TRON', to_address: to, amount },
  });
  expect(r.status).toBe(202);
  if (r.body.status === 'pending_review') await approvePayout(db(), t.clock, 'test', r.body.payout_id);
  return r.body.payout_id as string;
}

const row = (id: string) => db().selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

async function untilStatus(id: string, status: string) {
  await vi.waitFor(
    async () => {
      devnet.control.mine(1);
      expect((await row(id)).status).toBe(status);
    },
    { timeout: 15_000, interval: 50 },
  );
}

describe('a payout the node refuses to prepare', () => {
  it('waits with its own reason, shown in payout list, and the payouts behind it are sent', async () => {
    const refused = newAddress();
    const fine = newAddress();
    devnet.control.blacklist({ asset: 'USDT_TRON', address: refused });
    const key = await merchantPaying([refused, fine]);
    const first = await request(key, refused, '5');
    const behind = await request(key, fine, '6');

    await untilStatus(behind, 'confirmed');
    expect(successfulTransfersTo(devnet, hot, fine)).toHaveLength(1);
    await vi.waitFor(
      async () => expect((await row(first)).wait_reason).toMatch(/cannot prepare the transaction: .*REVERT/),
      { timeout: 10_000 },
    );
    expect((await row(first)).status).toBe('queued');
    expect(successfulTransfersTo(devnet, hot, refused)).toHaveLength(0);

    const list = await runCli(['payout', 'list', '--status', 'queued', '--json'], {
      DATABASE_URL: t.app.config.databaseUrl,
      TRON_NETWORK: 'devnet',
    });
    expect(list.code, list.stderr).toBe(0);
    expect(list.json.data.find((p: { payout_id: string }) => p.payout_id === first)?.wait_reason).toMatch(/REVERT/);

    await cancelPayout(db(), t.clock, 'test', first, 'recipient refused by the token contract');
    expect(await ledgerProblems(db())).toEqual([]);
  });

  it('a node that is down ends the pass with the reason, and nothing is lost once it answers', async () => {
    const a = newAddress();
    const b = newAddress();
    const key = await merchantPaying([a, b]);
    devnet.control.addFault({ kind: 'http', path: '/wallet/estimateenergy', status: 503, times: 6 });
    const ids = [await request(key, a, '2'), await request(key, b, '3')];
    for (const id of ids) await untilStatus(id, 'confirmed');
    expect(devnet.control.faults()).toEqual([]);
    expect(successfulTransfersTo(devnet, hot, a)).toHaveLength(1);
    expect(successfulTransfersTo(devnet, hot, b)).toHaveLength(1);
    expect(await ledgerProblems(db())).toEqual([]);
  });
});
