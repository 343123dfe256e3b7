/**
 * A transfer re-included after a fork is the same deposit (same tx hash and log index), but not
 * always the same transfer: a contract's logs depend on the state it runs against, so on the new
 * fork the same log may carry another amount or go to another address. What is credited is what
 * the chain that became final says, never what a dropped fork said.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeTx } from '../../src/db/database.js';
import { findDepositAddresses } from '../../src/addresses/store.js';
import { recordTransfer, type FoundTransfer } from '../../src/deposits/service.js';
import { advanceDeposits, orphanDropped } from '../../src/watcher/deposit-progress.js';
import { api } from '../helpers/http.js';
import { expectLedgerMatchesDeposits } from '../helpers/invariants.js';
import { newInvoice, startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';

let t: InvoiceTestApp;
beforeAll(async () => {
  t = await startInvoiceApp();
});
afterAll(() => t.close());

const TX = 'ab'.repeat(32);
const indexOf = async (db: Parameters<typeof findDepositAddresses>[0], address: string) =>
  (await findDepositAddresses(db, [address]))[0]!.derivation_index;
const transfer = (
  address: string,
  derivationIndex: number,
  merchantId: string,
  amount: bigint,
  block: number,
): FoundTransfer => ({
  address,
  derivationIndex,
  merchantId,
  externalUserId: null,
  asset: 'USDT_TRON',
  decimals: 6,
  amount,
  txHash: TX,
  logIndex: 0,
  from: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL',
  block: { number: block, hash: `${block}`.padStart(64, '0'), time: t.clock.now().toISOString() },
});

it('credits the re-included transfer as the new fork has it, to the invoice it pays there', async () => {
  const { merchant, key } = await t.merchant();
  const create = async () => (await api(t.url, '/v1/invoices', { key, body: newInvoice({ amount: '10' }) })).body;
  const first = await create();
  const second = await create();
  const db = t.app.services.db;
  const ctx = { clock: t.clock, defaultConfirmations: 19, head: 101 };
  const progress = (head: number, solid: number, scannedTo: number) => ({
    ...ctx,
    horizon: null,
    head,
    solid,
    scannedTo,
  });

  // Fork A: 10 USDT to the first invoice's address at block 100.
  await writeTx(db, async (trx) => {
    const r = await recordTransfer(
      trx,
      ctx,
      transfer(first.address, await indexOf(trx, first.address), merchant.merchant_id, 10_000_000n, 100),
    );
    await advanceDeposits(trx, progress(101, 50, 101), new Set(r?.invoices));
  });
  expect((await api(t.url, `/v1/invoices/${first.invoice_id}`, { key })).body).toMatchObject({
    status: 'seen',
    amount_received: '10',
  });

  // The fork drops block 100; on the new chain the same call logged 4 USDT to the second address.
  await writeTx(db, async (trx) => {
    const touched = await orphanDropped(trx, ctx, 99);
    const r = await recordTransfer(
      trx,
      ctx,
      transfer(second.address, await indexOf(trx, second.address), merchant.merchant_id, 4_000_000n, 101),
    );
    expect(r?.invoices.sort()).toEqual([first.invoice_id, second.invoice_id].sort());
    for (const id of r?.invoices ?? []) touched.add(id);
    await advanceDeposits(trx, progress(102, 50, 102), touched);
  });
  // Final and confirmed on the new chain.
  await writeTx(db, (trx) =>
    advanceDeposits(trx, progress(130, 110, 130), new Set([first.invoice_id, second.invoice_id])),
  );

  expect((await api(t.url, `/v1/invoices/${first.invoice_id}`, { key })).body).toMatchObject({
    status: 'created',
    amount_received: '0',
    amount_credited: '0',
    deposits: [],
  });
  const paid = (await api(t.url, `/v1/invoices/${second.invoice_id}`, { key })).body;
  expect(paid).toMatchObject({ amount_received: '4', deposits: [{ tx_hash: TX, amount: '4' }] });
  await expectLedgerMatchesDeposits(db, { settled: false });
});
