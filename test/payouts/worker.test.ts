/**
 * The payout worker against the devnet: approved payouts reach `confirmed` with a tx_hash the chain
 * shows, exactly once, whatever the node does; waits (short wallet, limits, halts) never fail a
 * payout; cancel; failed receipts release the reservation and are never sent again.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { balance } from '../../src/ledger/service.js';
import { writeTx } from '../../src/db/database.js';
import { changeMerchant, setOwnerSwitch } from '../../src/merchants/service.js';
import { setHalt } from '../../src/payouts/halts.js';
import { hotWalletPrivateKey } from '../../src/wallet/hd.js';
import { TronWeb } from 'tronweb';
import { approvePayout, cancelPayout, listPayouts } from '../../src/payouts/operator.js';
import { setHotWalletLimit } from '../../src/payouts/worker/limits.js';
import { waitingPayouts } from '../../src/payouts/worker/store.js';
import { addToWhitelist, removeFromWhitelist } from '../../src/whitelist/service.js';
import type { Devnet } from '../../src/devnet/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { api } from '../helpers/http.js';
import { newAddress } from './fixture.js';
import {
  ledgerProblems,
  startTestDevnet,
  successfulTransfersTo,
  transfersFrom,
  workerAppOptions,
} from './worker-fixture.js';

let devnet: Devnet;
let t: TestApp;
let hot: string;
let mnemonic: string;
const db = () => t.app.services.db;
const catalog = () => t.app.services.catalog;

beforeAll(async () => {
  devnet = await startTestDevnet();
  // Pages of 2 payouts per step: waiting payouts must not hold back the ones behind them.
  const w = await workerAppOptions(devnet, { batch: 2 });
  hot = w.hotAddress;
  mnemonic = w.mnemonic;
  t = await startTestApp(w.options);
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

async function merchantWith(amount: string, asset = 'USDT_TRON') {
  const { merchant, key } = await t.merchant();
  const id = merchant.merchant_id;
  await creditMerchant(db(), t.clock, 'test', catalog(), id, { asset, amount, memo: 'opening balance' });
  const address = newAddress();
  await addToWhitelist(db(), t.clock, 'test', catalog(), id, { asset, address, delay: '0' });
  return { id, key, address };
}

/** POST /v1/payouts; a first payout to an address waits for review, which the operator approves unless `review: false`. */
async function request(key: string, to: string, amount: string, asset = 'USDT_TRON', review = true) {
  const r = await api(t.url, '/v1/payouts', {
    key,
    body: { reference: `r-${Math.random()}`, asset, to_address: to, amount },
  });
  expect(r.status).toBe(202);
  const id = r.body.payout_id as string;
  if (review && r.body.status === 'pending_review') await approvePayout(db(), t.clock, 'test', id);
  return id;
}

const ownerSwitch = (id: string, on: boolean) =>
  writeTx(db(), (trx) => setOwnerSwitch(trx, t.clock, 'owner:test', id, on));

const row = (id: string) => db().selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Mines a block per poll until the payout reaches `status`. */
async function untilStatus(id: string, status: string, mine = true) {
  await vi.waitFor(
    async () => {
      if (mine) devnet.control.mine(1);
      expect((await row(id)).status).toBe(status);
    },
    { timeout: 15_000, interval: 50 },
  );
  return row(id);
}

function fundHot(asset: string, units: bigint) {
  devnet.control.fund({ address: hot, asset, amount: units, mine: true });
}

describe('payout worker', () => {
  it('takes an approved USDT payout to confirmed: one transfer on chain, tx_hash shown, money debited, events per step', async () => {
    fundHot('TRX_TRON', 5_000_000_000n);
    fundHot('USDT_TRON', 1_000_000_000n);
    const m = await merchantWith('100');
    const id = await request(m.key, m.address, '12.5');
    const done = await untilStatus(id, 'confirmed');

    const onChain = successfulTransfersTo(devnet, hot, m.address);
    expect(onChain).toHaveLength(1);
    expect(onChain[0]).toMatchObject({ txid: done.tx_hash, amount: 12_500_000n });
    expect(devnet.control.balances(m.address).tokens.USDT_TRON).toBe(12_500_000n);
    const view = (await api(t.url, `/v1/payouts/${id}`, { key: m.key })).body;
    expect(view).toMatchObject({
      status: 'confirmed',
      tx_hash: done.tx_hash,
      fees: { network: { charged: view.fees.network.amount } },
    });
    const b = await balance(db(), m.id, 'USDT_TRON');
    expect(b.reserved).toBe(0n);
    expect(b.balance).toBe(100_000_000n - 12_500_000n - BigInt(done.fee_amount));
    const events = await db().selectFrom('events').select('type').where('subject_id', '=', id).orderBy('seq').execute();
    expect(events.map((e) => e.type)).toEqual([
      'payout.pending_review',
      'payout.approved',
      'payout.queued',
      'payout.signing',
      'payout.broadcast',
      'payout.confirmed',
    ]);
    expect(done.network_fee).not.toBeNull();
    expect(await ledgerProblems(db())).toEqual([]);
  });

  it('sends TRX payouts too', async () => {
    const m = await merchantWith('50', 'TRX_TRON');
    const id = await request(m.key, m.address, '3', 'TRX_TRON');
    await untilStatus(id, 'confirmed');
    expect(devnet.control.balances(m.address).trx).toBe(3_000_000n);
    expect(successfulTransfersTo(devnet, hot, m.address)).toHaveLength(1);
  });

  it('keeps a payout queued with a reason while the hot wallet is short, then sends it once funded', async () => {
    const m = await merchantWith('1000000', 'USDC_TRON');
    const id = await request(m.key, m.address, '500', 'USDC_TRON');
    await vi.waitFor(async () => expect((await row(id)).wait_reason).toMatch(/short of USDC_TRON/), {
      timeout: 10_000,
    });
    expect((await row(id)).status).toBe('queued');
    expect((await listPayouts(db(), { status: 'queued' }))[0]?.wait_reason).toMatch(/short of USDC_TRON/);
    expect((await waitingPayouts(db())).map((w) => w.payout_id)).toContain(id);

    fundHot('USDC_TRON', 500_000_000n);
    const done = await untilStatus(id, 'confirmed');
    expect(done.wait_reason).toBeNull();
    expect(successfulTransfersTo(devnet, hot, m.address)).toHaveLength(1);
  });

  it('payouts waiting for a short wallet do not hold back the ones behind them', async () => {
    const m = await merchantWith('100000', 'USDC_TRON');
    const waiting = [];
    for (let i = 0; i < 3; i++) waiting.push(await request(m.key, m.address, '20000', 'USDC_TRON'));
    const n = await merchantWith('100');
    const behind = await request(n.key, n.address, '7');
    await untilStatus(behind, 'confirmed');
    for (const id of waiting) {
      expect((await row(id)).status).toBe('queued');
      expect((await row(id)).wait_reason).toMatch(/short of USDC_TRON/);
      await cancelPayout(db(), t.clock, 'test', id, 'test over');
    }
    expect((await balance(db(), m.id, 'USDC_TRON')).reserved).toBe(0n);
  });

  it('holds a payout above the hot wallet limits until the operator raises them; cancel stops a waiting one', async () => {
    await setHotWalletLimit(db(), t.clock, 'test', catalog(), 'USDT_TRON', { perPayout: '20', perDay: '1000' });
    const m = await merchantWith('100');
    const big = await request(m.key, m.address, '25');
    const other = await request(m.key, m.address, '30');
    await vi.waitFor(async () => expect((await row(big)).wait_reason).toMatch(/per-payout limit of 20 USDT_TRON/), {
      timeout: 10_000,
    });

    const cancelled = await cancelPayout(db(), t.clock, 'test', other, 'merchant asked');
    expect(cancelled).toMatchObject({ status: 'rejected', reject_reason: 'merchant asked' });
    await setHotWalletLimit(db(), t.clock, 'test', catalog(), 'USDT_TRON', { perPayout: 'none' });
    await untilStatus(big, 'confirmed');
    expect(successfulTransfersTo(devnet, hot, m.address).map((x) => x.amount)).toEqual([25_000_000n]);
    await expect(cancelPayout(db(), t.clock, 'test', big, 'too late')).rejects.toMatchObject({ code: 'invalid_state' });
    const b = await balance(db(), m.id, 'USDT_TRON');
    expect(b.reserved).toBe(0n);
    await setHotWalletLimit(db(), t.clock, 'test', catalog(), 'USDT_TRON', { perDay: 'none' });
  });

  it("waits while the owner's switch is off; rejects a payout whose whitelist entry vanished before it was queued", async () => {
    const m = await merchantWith('100');
    const gone = await request(m.key, m.address, '5', 'USDT_TRON', false);
    const held = await request(m.key, m.address, '6', 'USDT_TRON', false);
    // The owner's switch alone (the operator's stays on) keeps the merchant's payouts waiting.
    await ownerSwitch(m.id, false);
    await approvePayout(db(), t.clock, 'test', gone);
    await vi.waitFor(async () => expect((await row(gone)).wait_reason).toMatch(/merchant disabled/), {
      timeout: 10_000,
    });
    expect((await row(gone)).status).toBe('approved');
    await removeFromWhitelist(db(), t.clock, 'test', catalog(), m.id, { asset: 'USDT_TRON', address: m.address });
    await ownerSwitch(m.id, true);
    await vi.waitFor(async () => expect((await row(gone)).status).toBe('rejected'), { timeout: 10_000 });
    expect((await row(gone)).reject_reason).toMatch(/whitelist/);
    const audit = await db().selectFrom('audit_log').selectAll().where('subject_id', '=', gone).execute();
    expect(audit.map((a) => a.action)).toContain('payout.reject');
    expect(successfulTransfersTo(devnet, hot, m.address)).toHaveLength(0);
    expect((await row(held)).status).toBe('pending_review');
    await expect(cancelPayout(db(), t.clock, 'test', held, 'address removed')).resolves.toMatchObject({
      status: 'rejected',
    });
    expect((await balance(db(), m.id, 'USDT_TRON')).reserved).toBe(0n);
  });

  it("an approved payout to an address removed and added again waits for the new entry's delay before it is sent", async () => {
    fundHot('TRX_TRON', 200_000_000n);
    fundHot('USDT_TRON', 4_000_000n);
    const m = await merchantWith('100');
    const p = await request(m.key, m.address, '4', 'USDT_TRON', false);
    await changeMerchant(db(), t.clock, 'test', m.id, 'disable');
    await approvePayout(db(), t.clock, 'test', p);
    await vi.waitFor(async () => expect((await row(p)).wait_reason).toMatch(/merchant disabled/), { timeout: 10_000 });
    await removeFromWhitelist(db(), t.clock, 'test', catalog(), m.id, { asset: 'USDT_TRON', address: m.address });
    await addToWhitelist(db(), t.clock, 'test', catalog(), m.id, {
      asset: 'USDT_TRON',
      address: m.address,
      delay: '1h',
    });
    await changeMerchant(db(), t.clock, 'test', m.id, 'enable');
    await vi.waitFor(async () => expect((await row(p)).wait_reason).toMatch(/delay before first use; usable from/), {
      timeout: 10_000,
    });
    expect((await row(p)).status).toBe('approved');
    expect(successfulTransfersTo(devnet, hot, m.address)).toHaveLength(0);
    (t.clock as ManualClock).advance(3_600_000);
    const done = await untilStatus(p, 'confirmed');
    expect(done.wait_reason).toBeNull();
    expect(successfulTransfersTo(devnet, hot, m.address).filter((x) => x.txid === done.tx_hash)).toHaveLength(1);
  });

  it('halt --worker stops signing (requests stay open after a plain resume); resume --worker sends', async () => {
    await setHalt(db(), t.clock, 'test', catalog(), { worker: true, halted: true });
    await setHalt(db(), t.clock, 'test', catalog(), { worker: false, halted: false });
    const m = await merchantWith('100');
    const id = await request(m.key, m.address, '4');
    await vi.waitFor(async () => expect((await row(id)).wait_reason).toMatch(/halted/), { timeout: 10_000 });
    expect((await row(id)).status).toBe('queued');
    await setHalt(db(), t.clock, 'test', catalog(), { worker: true, halted: false });
    await untilStatus(id, 'confirmed');
    expect(successfulTransfersTo(devnet, hot, m.address)).toHaveLength(1);
  });

  it('re-broadcasts the same bytes after a lost answer, and signs anew only once the old transaction provably expired', async () => {
    const m = await merchantWith('100');
    // Lost answer: the node accepts the transaction, the worker never hears it; the retry is a duplicate.
    const lost = devnet.control.addFault({ kind: 'lost_answer', path: '/wallet/broadcasttransaction', times: 1 });
    const a = await request(m.key, m.address, '1');
    const first = await untilStatus(a, 'confirmed');
    expect(devnet.control.faults().map((f) => f.id)).not.toContain(lost.id);
    expect(successfulTransfersTo(devnet, hot, m.address)).toHaveLength(1);
    expect(first.sign_attempts).toBe(1);

    // The node refuses every broadcast: the payout stays signing; after its expiration and the solid
    // block past it, the txid is provably absent and the payout is signed again, sent once.
    const refuse = devnet.control.addFault({ kind: 'http', status: 503, path: '/wallet/broadcasttransaction' });
    const b = await request(m.key, m.address, '2');
    await vi.waitFor(async () => expect((await row(b)).status).toBe('signing'), { timeout: 10_000 });
    const old = (await row(b)).tx_hash as string;
    devnet.control.mine(25); // 75 s of chain time: past the 60 s expiration, solid too
    await vi.waitFor(async () => expect((await row(b)).sign_attempts).toBe(2), { timeout: 10_000 });
    devnet.control.clearFaults(refuse.id);
    const done = await untilStatus(b, 'confirmed');
    expect(done.tx_hash).not.toBe(old);
    const sent = successfulTransfersTo(devnet, hot, m.address);
    expect(sent.map((x) => x.amount).sort()).toEqual([1_000_000n, 2_000_000n]);
    expect(transfersFrom(devnet, hot).some((x) => x.txid === old)).toBe(false);
    const keys = await db().selectFrom('events').select('dedupe_key').where('subject_id', '=', b).execute();
    expect(keys.map((k) => k.dedupe_key)).toEqual(
      expect.arrayContaining([`payout:${b}:signing:1`, `payout:${b}:queued:1`, `payout:${b}:signing:2`]),
    );
  });

  it('never signs anew on "not found" answers while the blocks show the transaction landed (a lagging backend)', async () => {
    const m = await merchantWith('100');
    // Every broadcast reaches the node and its answer is lost; every solidity lookup of a txid is
    // answered {} (not found), as by a backend behind a load balancer that lags.
    const lost = devnet.control.addFault({ kind: 'lost_answer', path: '/wallet/broadcasttransaction' });
    const lagging = devnet.control.addFault({ kind: 'not_found', path: '/walletsolidity/gettransaction' });
    const hits = (id: number) => devnet.control.faults().find((f) => f.id === id)?.hits ?? 0;
    let p: string;
    let txid: string;
    try {
      p = await request(m.key, m.address, '3');
      // Signed, stored, broadcast (the node took it; its answer was lost) and broadcast again: the
      // first one is in the node's pool by the time the second arrives.
      await vi.waitFor(() => expect(hits(lost.id)).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
      txid = (await row(p)).tx_hash as string;
      devnet.control.mine(25); // 75 s of chain time: past the 60 s expiration, solid too
      expect(successfulTransfersTo(devnet, hot, m.address).filter((x) => x.txid === txid)).toHaveLength(1);
      // The worker looks the transaction up again and again past its expiration, and never gives it up.
      const seen = hits(lagging.id);
      await vi.waitFor(() => expect(hits(lagging.id)).toBeGreaterThanOrEqual(seen + 10), { timeout: 20_000 });
      expect(await row(p)).toMatchObject({ status: 'signing', sign_attempts: 1, tx_hash: txid });
    } finally {
      devnet.control.clearFaults(lost.id);
      devnet.control.clearFaults(lagging.id);
    }
    const done = await untilStatus(p, 'confirmed');
    expect(done).toMatchObject({ tx_hash: txid, sign_attempts: 1 });
    expect(successfulTransfersTo(devnet, hot, m.address).filter((x) => x.amount === 3_000_000n)).toHaveLength(1);
  });

  it("rejects a payout to this gateway's own address whitelisted before whitelists refused them", async () => {
    const m = await merchantWith('100');
    const inv = await api(t.url, '/v1/invoices', {
      key: m.key,
      body: { order_id: `own-${Math.random()}`, asset: 'USDT_TRON', amount: '1', expires_in: 600 },
    });
    expect(inv.status).toBe(201);
    const deposit = inv.body.address as string;
    await expect(
      addToWhitelist(db(), t.clock, 'test', catalog(), m.id, { asset: 'USDT_TRON', address: deposit, delay: '0' }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    // An entry from before that rule, written as the old release did.
    const at = t.clock.now().toISOString();
    await db()
      .insertInto('whitelist_entries')
      .values({
        id: crypto.randomUUID(),
        merchant_id: m.id,
        asset: 'USDT_TRON',
        address: deposit,
        usable_from: at,
        created_at: at,
        created_by: 'test',
        removed_at: null,
        removed_by: null,
      })
      .execute();
    const p = await request(m.key, deposit, '2');
    const done = await untilStatus(p, 'rejected', false);
    expect(done.reject_reason).toMatch(/belongs to this gateway/);
    expect(successfulTransfersTo(devnet, hot, deposit)).toHaveLength(0);
    expect((await balance(db(), m.id, 'USDT_TRON')).available).toBe(100_000_000n);
  });

  it('rejects a payout to a deposit address handed out before or after the worker started', async () => {
    // Funded: a payout that passed the check would be sent, to ourselves.
    fundHot('TRX_TRON', 200_000_000n);
    fundHot('USDT_TRON', 10_000_000n);
    const m = await merchantWith('100');
    /** A deposit address of a new invoice, whitelisted as the old release did (whitelists refuse it now). */
    const depositAddress = async () => {
      const inv = await api(t.url, '/v1/invoices', {
        key: m.key,
        body: { order_id: `own-${Math.random()}`, asset: 'USDT_TRON', amount: '1', expires_in: 600 },
      });
      const at = t.clock.now().toISOString();
      await db()
        .insertInto('whitelist_entries')
        .values({
          id: crypto.randomUUID(),
          merchant_id: m.id,
          asset: 'USDT_TRON',
          address: inv.body.address,
          usable_from: at,
          created_at: at,
          created_by: 'test',
          removed_at: null,
          removed_by: null,
        })
        .execute();
      return inv.body.address as string;
    };
    const held = await depositAddress();
    // The worker has looked at payouts since: the next address is handed out while it runs.
    await untilStatus(await request(m.key, held, '1'), 'rejected', false);
    const later = await depositAddress();
    for (const to of [held, later]) {
      const done = await untilStatus(await request(m.key, to, '2'), 'rejected', false);
      expect(done).toMatchObject({
        reviewed_by: 'worker:payouts',
        reject_reason: `${to} belongs to this gateway (a deposit address or the hot wallet): a payout there would be credited to no one`,
      });
      expect(successfulTransfersTo(devnet, hot, to)).toHaveLength(0);
    }
    expect((await balance(db(), m.id, 'USDT_TRON')).available).toBe(100_000_000n);
  });

  it('marks an OUT_OF_ENERGY receipt failed, releases the reservation and never sends it again', async () => {
    // The receiver holds USDT when the energy is estimated (64,285) and none when the transfer runs
    // (130,285): the fee_limit with its margin is too low and the call runs out of energy.
    const receiver = devnet.accounts[3]!;
    const { merchant, key } = await t.merchant();
    await creditMerchant(db(), t.clock, 'test', catalog(), merchant.merchant_id, {
      asset: 'USDT_TRON',
      amount: '100',
      memo: 'seed',
    });
    await addToWhitelist(db(), t.clock, 'test', catalog(), merchant.merchant_id, {
      asset: 'USDT_TRON',
      address: receiver.address,
      delay: '0',
    });
    const refuse = devnet.control.addFault({ kind: 'http', status: 503, path: '/wallet/broadcasttransaction' });
    const id = await request(key, receiver.address, '1');
    await vi.waitFor(async () => expect((await row(id)).status).toBe('signing'), { timeout: 10_000 });
    const all = devnet.control.balances(receiver.address).tokens.USDT_TRON as bigint;
    devnet.control.pay({ from: 3, to: devnet.accounts[4]!.address, asset: 'USDT_TRON', amount: all, mine: true });
    devnet.control.clearFaults(refuse.id);
    const failed = await untilStatus(id, 'failed');
    expect(failed.fail_reason).toBe('OUT_OF_ENERGY');
    expect(failed.fee_charged).toBe('0');
    expect((await balance(db(), merchant.merchant_id, 'USDT_TRON')).available).toBe(100_000_000n);
    devnet.control.mine(30);
    expect(transfersFrom(devnet, hot).filter((x) => x.txid === failed.tx_hash)).toHaveLength(1);
    expect((await row(id)).sign_attempts).toBe(1);
    expect(await ledgerProblems(db())).toEqual([]);
  });

  it('marks a REVERT receipt failed with its reason, releases the reservation and never sends it again', async () => {
    // Signed while the hot wallet holds the USDT; emptied behind the worker's back before the
    // transaction runs, so the token contract reverts (transfer above the balance).
    fundHot('TRX_TRON', 200_000_000n);
    fundHot('USDT_TRON', 50_000_000n);
    const receiver = newAddress();
    const { merchant, key } = await t.merchant();
    await creditMerchant(db(), t.clock, 'test', catalog(), merchant.merchant_id, {
      asset: 'USDT_TRON',
      amount: '100',
      memo: 'seed',
    });
    await addToWhitelist(db(), t.clock, 'test', catalog(), merchant.merchant_id, {
      asset: 'USDT_TRON',
      address: receiver,
      delay: '0',
    });
    const refuse = devnet.control.addFault({ kind: 'http', status: 503, path: '/wallet/broadcasttransaction' });
    const id = await request(key, receiver, '1');
    await vi.waitFor(async () => expect((await row(id)).status).toBe('signing'), { timeout: 10_000 });
    const hotKey = {
      address: hot,
      hex: TronWeb.address.toHex(hot).toLowerCase(),
      privateKey: hotWalletPrivateKey(mnemonic),
    };
    const all = devnet.control.balances(hot).tokens.USDT_TRON as bigint;
    expect(
      devnet.control.chain.transfer({ from: hotKey, to: devnet.accounts[4]!.address, asset: 'USDT_TRON', amount: all }),
    ).toMatchObject({ result: true });
    devnet.control.mine(1);
    expect(devnet.control.balances(hot).tokens.USDT_TRON ?? 0n).toBe(0n);
    devnet.control.clearFaults(refuse.id);

    const failed = await untilStatus(id, 'failed');
    expect(failed.fail_reason).toBe('REVERT');
    expect(failed.fee_charged).toBe('0');
    expect(await balance(db(), merchant.merchant_id, 'USDT_TRON')).toMatchObject({
      available: 100_000_000n,
      reserved: 0n,
    });
    devnet.control.mine(30);
    const onChain = transfersFrom(devnet, hot).filter((x) => x.txid === failed.tx_hash);
    expect(onChain.map((x) => x.ret)).toEqual(['REVERT']);
    expect(devnet.control.balances(receiver).tokens.USDT_TRON ?? 0n).toBe(0n);
    expect((await row(id)).sign_attempts).toBe(1);
    expect(await ledgerProblems(db())).toEqual([]);
  });
});
