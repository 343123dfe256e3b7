/**
 * A payout that a transfer out of the hot wallet may already have paid is never sent without the
 * operator's word. After a restore (its holds and chain reading applied in process, as `paygate
 * restore` applies them), a merchant who sends a request again makes no ambiguity: a transfer that
 * landed before a payout was created is not that payout's. Once the reading is done, a request that
 * matches a transfer paygate did not sign is held, not sent, and the transfer cannot be acknowledged
 * while it waits; `payout confirm --txid` settles it (status, ledger, event and the transfer's match
 * together; every refusal changes nothing) and `payout approve` needs `--chain-checked`.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { writeTx } from '../../src/db/database.js';
import type { Devnet } from '../../src/devnet/index.js';
import { approvedMerchantWithKey } from '../../src/keys/service.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import type { MerchantRow } from '../../src/merchants/store.js';
import { findMerchant } from '../../src/merchants/store.js';
import { listUnknownOnChain, readingPending } from '../../src/restore/chain-reading.js';
import { setHalt } from '../../src/payouts/halts.js';
import { setPayoutLimits } from '../../src/payouts/limits.js';
import { holdAfterRestore } from '../../src/restore/payout-holds.js';
import { createPayout } from '../../src/payouts/service.js';
import { createPayoutWorker } from '../../src/payouts/worker/worker.js';
import type { WorkerLease } from '../../src/runtime/lease.js';
import type { WorkerServices } from '../../src/services.js';
import { acknowledgeTransfer } from '../../src/wallet/transfers.js';
import { hotWalletPrivateKey } from '../../src/wallet/hd.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { runCli } from '../helpers/cli.js';
import { cliEnvOf, startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { newAddress } from './fixture.js';
import { startTestDevnet, workerAppOptions } from './worker-fixture.js';

const USDT = (n: number) => BigInt(n) * 1_000_000n;

let devnet: Devnet;
let t: ConsoleTestApp;
let hot: string;
let mnemonic: string;
let merchant: MerchantRow;
const to = newAddress();

beforeAll(async () => {
  devnet = await startTestDevnet();
  const w = await workerAppOptions(devnet);
  hot = w.hotAddress;
  mnemonic = w.mnemonic;
  t = await startConsoleApp({
    ...w.options,
    workerHost: {
      ...w.options.workerHost,
      workers: (s: WorkerServices, lease: WorkerLease) => [
        chainWatcher(s, lease, { intervalMs: 30 }),
        createPayoutWorker(s, lease, { intervalMs: 30 }),
      ],
    },
  });
  devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 5_000_000_000n, mine: true });
  devnet.control.fund({ address: hot, asset: 'USDT_TRON', amount: USDT(100), mine: true });
  const { db, clock, catalog } = t.app.services;
  const { merchant: view } = await approvedMerchantWithKey(db, clock, 'test', { name: 'Shop' });
  merchant = (await findMerchant(db, view.merchant_id))!;
  await creditMerchant(db, clock, 'test', catalog, merchant.id, { asset: 'USDT_TRON', amount: '500', memo: 'seed' });
  await addToWhitelist(db, clock, 'test', catalog, merchant.id, { asset: 'USDT_TRON', address: to, delay: '0' });
  await setPayoutLimits(db, clock, 'test', merchant.id, { autoApproveLimit: '100', dailyLimit: null });
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

/** A USDT transfer out of the hot wallet signed with its key outside paygate, in a block: its txid and block time. */
async function broadcastOutside(amount: bigint): Promise<{ tx_hash: string; block_time: string }> {
  const chain = createTronClient({ fullHost: devnet.url });
  const usdt = t.app.services.catalog.get('USDT_TRON')!;
  const tx = await chain.buildTrc20Transfer({
    contract: usdt.contract!,
    from: hot,
    to,
    amount,
    feeLimit: 100_000_000n,
  });
  const sent = await chain.broadcast(await chain.sign(tx, hotWalletPrivateKey(mnemonic)));
  await chain.close?.();
  if (!sent.ok) throw new Error('the devnet refused the transfer');
  devnet.control.mine(1);
  return { tx_hash: sent.txid, block_time: new Date(devnet.control.info().head.timestamp).toISOString() };
}

/** As broadcastOutside, then recorded by the watcher. */
async function sendOutside(amount: bigint): Promise<{ tx_hash: string; block_time: string }> {
  const sent = await broadcastOutside(amount);
  await vi.waitFor(
    async () => {
      devnet.control.mine(1);
      await t.app.services.db
        .selectFrom('hot_wallet_transfers')
        .select('tx_hash')
        .where('tx_hash', '=', sent.tx_hash)
        .executeTakeFirstOrThrow();
    },
    { timeout: 15_000, interval: 50 },
  );
  return sent;
}

/** A payout request created just after `after` (the app's clock is a manual one). */
async function request(reference: string, amount: string, after: string) {
  const { db, clock, catalog } = t.app.services;
  (clock as ManualClock).set(new Date(Date.parse(after) + 1_000));
  const created = await createPayout({ db, clock, catalog }, merchant, {
    reference,
    asset: 'USDT_TRON',
    to_address: to,
    amount,
  });
  return created.payout.payout_id;
}

const row = (id: string) =>
  t.app.services.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** What a refusal must leave as it was. */
const snapshot = async () => {
  const db = t.app.services.db;
  return {
    payouts: await db.selectFrom('payouts').selectAll().orderBy('id').execute(),
    ledger: (await db.selectFrom('ledger_entries').select('id').execute()).length,
    events: (await db.selectFrom('events').select('id').execute()).length,
    transfers: await db.selectFrom('hot_wallet_transfers').select(['tx_hash', 'kind']).orderBy('tx_hash').execute(),
    acknowledgements: await db.selectFrom('hot_wallet_acknowledgements').selectAll().execute(),
    audit: (await db.selectFrom('audit_log').select('id').execute()).length,
  };
};

const refusal = (r: { status: number; body: { error?: { code: string } } }) => [r.status, r.body.error?.code];

let restored: string;
let againDuringReading: string;
let paidBefore: string;

describe('payouts a transfer out of the hot wallet may have paid', () => {
  it('after a restore, a transfer that landed before a payout was created is not that payout’s', async () => {
    const { db, clock } = t.app.services;
    (clock as ManualClock).set(new Date());
    restored = (
      await createPayout(t.app.services, merchant, { reference: 'r', asset: 'USDT_TRON', to_address: to, amount: '7' })
    ).payout.payout_id;
    await writeTx(db, (trx) => holdAfterRestore(trx, clock, 'test', 'backup.db'));
    // The restored payout was sent after the backup (here: with the hot key, outside this database).
    const paid = await broadcastOutside(USDT(7));
    paidBefore = paid.tx_hash;
    // The merchant sends the same payout again during the reading, after the transfer landed.
    againDuringReading = await request('again', '7', paid.block_time);
    expect((await row(againDuringReading)).hold_reason).toMatch(/being read/);
    await vi.waitFor(
      async () => {
        devnet.control.mine(5);
        expect(await readingPending(db)).toBe(false);
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(await row(restored)).toMatchObject({ status: 'confirmed', tx_hash: paid.tx_hash, hold_reason: null });
    expect((await row(againDuringReading)).hold_reason).toMatch(/shows no transfer out/);
    expect((await listUnknownOnChain(db)).payouts).toMatchObject([{ payout_id: againDuringReading, candidates: [] }]);
  });

  it('once the reading is done, a request matching an unknown transfer is held, never sent, and settled by payout confirm', async () => {
    const { db, clock, catalog } = t.app.services;
    await setHalt(db, clock, 'test', catalog, { worker: true, halted: false });
    const lost = await sendOutside(USDT(5));
    const again = await request('lost-and-asked-again', '5', lost.block_time);
    expect(await row(again)).toMatchObject({ status: 'approved', hold_tx_hash: lost.tx_hash });
    expect((await row(again)).hold_reason).toMatch(/did not sign/);
    t.app.workers?.wake('payouts');
    // The worker reads it and waits: it is held.
    await vi.waitFor(async () => expect((await row(again)).wait_reason).toMatch(/did not sign/), { timeout: 10_000 });

    const before = await snapshot();
    await expect(acknowledgeTransfer(db, clock, 'test', lost.tx_hash, 'mine')).rejects.toMatchObject({
      code: 'invalid_state',
      message: expect.stringContaining(again),
    });
    const approve = await t.call(`/admin/v1/payouts/${again}/approve`, { body: {} });
    expect(refusal(approve)).toEqual([409, 'invalid_state']);
    expect(approve.body.error.message).toMatch(/chain_checked/);
    const confirm = (id: string, txid: string) => t.call(`/admin/v1/payouts/${id}/confirm`, { body: { txid } });
    expect(refusal(await confirm(again, randomBytes(32).toString('hex')))).toEqual([
      404,
      'hot_wallet_transfer_not_found',
    ]);
    expect(refusal(await confirm(again, paidBefore))).toEqual([409, 'invalid_state']);
    expect(refusal(await confirm(restored, lost.tx_hash))).toEqual([409, 'invalid_state']);
    expect(refusal(await confirm(againDuringReading, lost.tx_hash))).toEqual([422, 'transfer_mismatch']);
    expect(await snapshot()).toEqual(before);

    const settled = await confirm(again, lost.tx_hash);
    expect(settled.status, settled.text).toBe(200);
    expect(settled.body).toMatchObject({
      payout_id: again,
      status: 'confirmed',
      tx_hash: lost.tx_hash,
      hold_reason: null,
    });
    const ledger = await db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount'])
      .where('payout_id', '=', again)
      .execute();
    expect(ledger.map((e) => e.kind)).toEqual(expect.arrayContaining(['reserve', 'release', 'debit']));
    const events = await db.selectFrom('events').select('type').where('subject_id', '=', again).execute();
    expect(events.map((e) => e.type)).toContain('payout.confirmed');
    expect(
      await db.selectFrom('hot_wallet_transfers').selectAll().where('tx_hash', '=', lost.tx_hash).execute(),
    ).toMatchObject([{ kind: 'restore_match', payout_id: again }]);
    // The recipient holds the one payment of each intent: 7 and 5.
    expect(devnet.control.balances(to).tokens.USDT_TRON).toBe(USDT(12));
  });

  it('payout confirm refuses a transaction whose block is not final yet, changing nothing', async () => {
    const { db } = t.app.services;
    // Mined into one block and no more: the devnet's solid height stays 2 blocks below it.
    const fresh = await broadcastOutside(USDT(4));
    await vi.waitFor(
      () =>
        db
          .selectFrom('hot_wallet_transfers')
          .select('tx_hash')
          .where('tx_hash', '=', fresh.tx_hash)
          .executeTakeFirstOrThrow(),
      { timeout: 15_000, interval: 50 },
    );
    const id = await request('four-not-final', '4', fresh.block_time);
    t.app.workers?.wake('payouts');
    await vi.waitFor(async () => expect((await row(id)).wait_reason).toMatch(/did not sign/), { timeout: 10_000 });
    const before = await snapshot();
    const r = await t.call(`/admin/v1/payouts/${id}/confirm`, { body: { txid: fresh.tx_hash } });
    expect(refusal(r)).toEqual([409, 'invalid_state']);
    expect(r.body.error.message).toMatch(/solid height .* once its block is final/);
    expect(await snapshot()).toEqual(before);
  });

  it('approving a held payout with a candidate needs --chain-checked', async () => {
    const other = await sendOutside(USDT(3));
    const id = await request('three', '3', other.block_time);
    const env = cliEnvOf(t);
    const plain = await runCli(['payout', 'approve', id, '--json'], env);
    expect(plain.code).toBe(1);
    expect(plain.json.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining(other.tx_hash) });
    const checked = await runCli(['payout', 'approve', id, '--chain-checked', '--json'], env);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.json).toMatchObject({ payout_id: id, hold_reason: null });
  });
});
