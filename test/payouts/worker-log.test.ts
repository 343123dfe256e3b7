/**
 * Money leaving is logged: a payout driven through the devnet leaves one line per step (signed,
 * broadcast, confirmed at info; failed at error), each naming the payout, its merchant, asset,
 * amount, recipient and txid, and never a secret.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Devnet } from '../../src/devnet/index.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { createLogger } from '../../src/logger.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { api } from '../helpers/http.js';
import { newAddress } from './fixture.js';
import { startTestDevnet, workerAppOptions } from './worker-fixture.js';

let devnet: Devnet;
let t: TestApp;
let hot: string;
let mnemonic: string;
let logText = '';
const entries = () =>
  logText
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  devnet = await startTestDevnet();
  const w = await workerAppOptions(devnet);
  hot = w.hotAddress;
  mnemonic = w.mnemonic;
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logText += String(chunk);
      cb();
    },
  });
  t = await startTestApp({ ...w.options, logger: createLogger('info', sink) });
  devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 5_000_000_000n, mine: true });
  devnet.control.fund({ address: hot, asset: 'USDT_TRON', amount: 1_000_000_000n, mine: true });
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

const db = () => t.app.services.db;
const row = (id: string) => db().selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

async function payout(to: string, amount: string) {
  const { merchant, key } = await t.merchant();
  const m = merchant.merchant_id;
  await creditMerchant(db(), t.clock, 'test', t.app.services.catalog, m, {
    asset: 'USDT_TRON',
    amount: '100',
    memo: 'seed',
  });
  await addToWhitelist(db(), t.clock, 'test', t.app.services.catalog, m, {
    asset: 'USDT_TRON',
    address: to,
    delay: '0',
  });
  const r = await api(t.url, '/v1/payouts', {
    key,
    body: { reference: `r-${Math.random()}`, asset: 'USDT_TRON', to_address: to, amount },
  });
  expect(r.status).toBe(202);
  const id = r.body.payout_id as string;
  if (r.body.status === 'pending_review') await approvePayout(db(), t.clock, 'test', id);
  return { id, merchant: m };
}

async function untilStatus(id: string, status: string) {
  await vi.waitFor(
    async () => {
      devnet.control.mine(1);
      expect((await row(id)).status).toBe(status);
    },
    { timeout: 15_000, interval: 50 },
  );
  return row(id);
}

function linesOf(id: string) {
  return entries().filter((e) => e.payout === id && e.component === 'payout-worker');
}

describe('payout worker log', () => {
  it('logs signed, broadcast and confirmed at info with the payout, merchant, asset, amount, recipient and txid', async () => {
    const to = newAddress();
    const { id, merchant } = await payout(to, '12.5');
    const done = await untilStatus(id, 'confirmed');
    await vi.waitFor(() => expect(linesOf(id).map((e) => e.msg)).toContain('payout confirmed'));
    const lines = linesOf(id);
    expect(lines.map((e) => e.msg)).toEqual(['payout signed', 'payout broadcast', 'payout confirmed']);
    for (const e of lines) {
      expect(e).toMatchObject({
        level: 30,
        payout: id,
        merchant,
        asset: 'USDT_TRON',
        amount: '12500000',
        to,
        txid: done.tx_hash,
      });
    }
    expect(lines[2]).toHaveProperty('network_fee_sun', done.network_fee);
    // Never a secret: neither the seed nor any of its words in a row.
    expect(logText).not.toContain(mnemonic);
    expect(logText).not.toMatch(/[xt]prv/);
  });

  it('logs a failed receipt at error with the same ids and the receipt', async () => {
    // As in worker.test.ts: the receiver's USDT is gone between the estimate and the run, so the
    // transfer runs out of energy.
    const receiver = devnet.accounts[3]!;
    const refuse = devnet.control.addFault({ kind: 'http', status: 503, path: '/wallet/broadcasttransaction' });
    const { id, merchant } = await payout(receiver.address, '1');
    await vi.waitFor(async () => expect((await row(id)).status).toBe('signing'), { timeout: 10_000 });
    const all = devnet.control.balances(receiver.address).tokens.USDT_TRON as bigint;
    devnet.control.pay({ from: 3, to: devnet.accounts[4]!.address, asset: 'USDT_TRON', amount: all, mine: true });
    devnet.control.clearFaults(refuse.id);
    const failed = await untilStatus(id, 'failed');
    await vi.waitFor(() => expect(linesOf(id).some((e) => e.level === 50)).toBe(true));
    const line = linesOf(id).find((e) => e.level === 50)!;
    expect(line).toMatchObject({
      msg: 'payout failed on chain; reservation released, not re-sent',
      payout: id,
      merchant,
      asset: 'USDT_TRON',
      amount: '1000000',
      to: receiver.address,
      txid: failed.tx_hash,
      receipt: 'OUT_OF_ENERGY',
    });
    expect(linesOf(id).map((e) => e.msg)).toContain('payout signed');
  });
});
