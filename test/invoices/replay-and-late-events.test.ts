/**
 * A repeated creation answers the invoice with its deposits; a late payment reports every status
 * before paid_late. Deposits are recorded the way the chain watcher records them (recordTransfer
 * and advanceDeposits in one write transaction of the real SQLite file); the invoice is created
 * and read over real HTTP.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTx } from '../../src/db/database.js';
import { findDepositAddresses } from '../../src/addresses/store.js';
import { recordTransfer } from '../../src/deposits/service.js';
import { statusPath } from '../../src/invoices/lifecycle.js';
import { eventsOf } from '../../src/webhooks/outbox.js';
import { advanceDeposits } from '../../src/watcher/deposit-progress.js';
import { api } from '../helpers/http.js';
import { newInvoice, startInvoiceApp, type InvoiceTestApp } from './fixture.js';

let t: InvoiceTestApp;
beforeAll(async () => {
  t = await startInvoiceApp();
});
afterAll(() => t.close());

let blockNumber = 1_000;

/**
 * One watcher commit: a USDT transfer to `inv.address` in a block at `blockTime`, then progress and
 * settlement with the head `confirmations - 1` blocks above it (the solid height below it: nothing final).
 */
async function pay(
  inv: { address: string },
  merchantId: string,
  units: bigint,
  blockTime: Date,
  confirmations: number,
): Promise<void> {
  const block = { number: ++blockNumber, hash: randomBytes(32).toString('hex'), time: blockTime.toISOString() };
  const head = block.number + confirmations - 1;
  blockNumber = head;
  const clock = t.clock;
  await writeTx(t.app.services.db, async (trx) => {
    const r = await recordTransfer(
      trx,
      { clock, head: 0 },
      {
        address: inv.address,
        derivationIndex: (await findDepositAddresses(trx, [inv.address]))[0]!.derivation_index,
        merchantId,
        externalUserId: null,
        asset: 'USDT_TRON',
        decimals: 6,
        amount: units,
        txHash: randomBytes(32).toString('hex'),
        logIndex: 0,
        from: null,
        block,
      },
    );
    // The horizon: the last scanned block's time, a block per 3 s above the deposit's.
    const horizon = new Date(blockTime.getTime() + (head - block.number) * 3_000).toISOString();
    await advanceDeposits(
      trx,
      { clock, defaultConfirmations: 19, horizon, head, solid: block.number - 1, scannedTo: head },
      new Set(r?.invoices ?? []),
    );
  });
}

const typesOf = async (merchantId: string, invoiceId: string) =>
  (await eventsOf(t.app.services.db, merchantId, 0, 1000)).filter((e) => e.subject_id === invoiceId).map((e) => e.type);

describe('invoice replays and late payments', () => {
  it('a repeated POST /v1/invoices answers the invoice as GET shows it, its deposits included', async () => {
    const m = await t.merchant();
    const created = await api(t.url, '/v1/invoices', {
      key: m.key,
      body: newInvoice({ order_id: 'replay-with-deposit', amount: '10' }),
    });
    expect(created.status).toBe(201);
    const inv = created.body;
    await pay(inv, m.merchant.merchant_id, 4_000_000n, t.clock.now(), 1);

    const read = await api(t.url, `/v1/invoices/${inv.invoice_id}`, { key: m.key });
    expect(read.body).toMatchObject({ status: 'seen', amount_received: '4' });
    expect(read.body.deposits).toHaveLength(1);

    // The merchant's retry of the creation (a timeout on its side) must show the same resource.
    const repeat = await api(t.url, '/v1/invoices', {
      key: m.key,
      body: newInvoice({ order_id: 'replay-with-deposit', amount: '10' }),
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(read.body);
  });

  it('reports invoice.expired before invoice.paid_late when one scan finds a late payment already confirmed', async () => {
    const m = await t.merchant();
    const inv = (await api(t.url, '/v1/invoices', { key: m.key, body: newInvoice({ amount: '10', expires_in: 60 }) }))
      .body;
    // A watcher catching up: the first block it scans past expires_at holds a full payment that
    // already has its 19 confirmations (the expiry job had not run: the horizon was behind).
    t.clock.advance(10 * 60_000);
    await pay(inv, m.merchant.merchant_id, 10_000_000n, new Date(Date.parse(inv.expires_at) + 3_000), 25);

    const got = (await api(t.url, `/v1/invoices/${inv.invoice_id}`, { key: m.key })).body;
    expect(got).toMatchObject({ status: 'paid_late', amount_received: '10' });
    expect(await typesOf(m.merchant.merchant_id, inv.invoice_id)).toEqual([
      'invoice.created',
      'invoice.expired',
      'invoice.paid_late',
    ]);
  });

  it('reports invoice.underpaid before invoice.paid_late when one scan passes expiry and confirms a late top-up', async () => {
    const m = await t.merchant();
    const inv = (await api(t.url, '/v1/invoices', { key: m.key, body: newInvoice({ amount: '10', expires_in: 60 }) }))
      .body;
    await pay(inv, m.merchant.merchant_id, 4_000_000n, t.clock.now(), 1);
    expect((await api(t.url, `/v1/invoices/${inv.invoice_id}`, { key: m.key })).body.status).toBe('seen');
    t.clock.advance(10 * 60_000);
    await pay(inv, m.merchant.merchant_id, 6_000_000n, new Date(Date.parse(inv.expires_at) + 3_000), 25);

    const got = (await api(t.url, `/v1/invoices/${inv.invoice_id}`, { key: m.key })).body;
    expect(got).toMatchObject({ status: 'paid_late', amount_received: '10' });
    expect(await typesOf(m.merchant.merchant_id, inv.invoice_id)).toEqual([
      'invoice.created',
      'invoice.seen',
      'invoice.underpaid',
      'invoice.paid_late',
    ]);
  });
});

describe('statusPath into paid_late', () => {
  it.each([
    ['created', false, ['expired', 'paid_late']],
    ['created', true, ['seen', 'underpaid', 'paid_late']],
    ['seen', true, ['underpaid', 'paid_late']],
    ['expired', false, ['paid_late']],
    ['underpaid', true, ['paid_late']],
    // A fork that drops the in-time deposits of a confirmed invoice moves back in one step.
    ['confirmed', false, ['paid_late']],
  ] as const)('%s → paid_late (in-time deposits: %s) reports %j', (from, inTime, path) => {
    expect(statusPath(from, 'paid_late', inTime)).toEqual(path);
  });
});
