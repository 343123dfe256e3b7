/** The merchant ledger over a real SQLite file: balances derived from append-only entries. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { listAudit } from '../../src/audit/store.js';
import { ManualClock } from '../../src/clock.js';
import { isUniqueViolation, writeTx, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { creditMerchant, debitMerchant, merchantBalances } from '../../src/ledger/operator.js';
import { applyEntry, balance, balances, heldReservation, post, verifyLedger } from '../../src/ledger/service.js';
import { createMerchant } from '../../src/merchants/service.js';
import { openTestDatabase } from '../helpers/database.js';

/** Whether `p` fails on the ledger's unique key over `columns` (on either engine). */
const refusedBy = (p: Promise<unknown>, columns: string[]) =>
  p.then(
    () => false,
    (e: unknown) => isUniqueViolation(e, 'ledger_entries', columns),
  );

describe('merchant ledger', () => {
  let dir: string;
  let database: Database;
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  const catalog = loadCatalog('devnet');
  const db = () => database.db;
  const merchant = async () => (await createMerchant(db(), clock, 'test', { name: 'Ledger shop' })).merchant_id;
  const postTx = (p: Parameters<typeof post>[2]) => writeTx(db(), (trx) => post(trx, clock, p));

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'paygate-ledger-'));
    database = await openTestDatabase(path.join(dir, 'paygate.db'));
    await migrateToLatest(database.db);
  });
  afterAll(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets the operator undo a credit with a debit of available money only, audited', async () => {
    const id = await merchant();
    await creditMerchant(db(), clock, 'cli:op', catalog, id, {
      asset: 'USDT_TRON',
      amount: '100',
      memo: 'typo: meant 10',
    });
    await postTx({
      merchantId: id,
      asset: 'USDT_TRON',
      kind: 'reserve',
      amount: 60_000_000n,
      payoutId: 'p-debit-test',
      actor: 'test',
    });
    // 40 available, 60 reserved for a payout: the reserved money cannot be taken back.
    await expect(
      debitMerchant(db(), clock, 'cli:op', catalog, id, { asset: 'USDT_TRON', amount: '40.000001', memo: 'undo' }),
    ).rejects.toMatchObject({ code: 'insufficient_balance' });
    const v = await debitMerchant(db(), clock, 'cli:op', catalog, id, {
      asset: 'USDT_TRON',
      amount: '40',
      memo: 'undo typo',
    });
    expect(v.balance).toEqual({ asset: 'USDT_TRON', available: '0', reserved: '60', total: '60' });
    expect((await listAudit(db(), 'merchant', id)).map((a) => a.action)).toEqual(
      expect.arrayContaining(['ledger.credit', 'ledger.debit']),
    );
    expect(await verifyLedger(db(), id, 'USDT_TRON')).toEqual([]);
  });

  it('books a correction with --reference once: a repeat answers the entry, another amount is refused', async () => {
    const id = await merchant();
    const other = await merchant();
    const credit = { asset: 'USDT_TRON', amount: '25', memo: 'ticket 4411', reference: 'T-4411' };
    const first = await creditMerchant(db(), clock, 'cli:op', catalog, id, credit);
    expect(first).toMatchObject({ amount: '25', reference: 'T-4411', replayed: false, balance: { available: '25' } });
    // A retry (the operator's shell timed out, a script ran twice) books nothing new.
    const again = await creditMerchant(db(), clock, 'cli:op', catalog, id, {
      ...credit,
      amount: '25.000000',
      memo: 'retry',
    });
    expect(again).toMatchObject({
      entry_id: first.entry_id,
      replayed: true,
      memo: 'ticket 4411',
      balance: { available: '25' },
    });
    expect((await balance(db(), id, 'USDT_TRON')).available).toBe(25_000_000n);
    // The same reference for anything else is refused, and changes nothing.
    for (const [m, input] of [
      [id, { ...credit, amount: '26' }],
      [id, { ...credit, asset: 'USDC_TRON' }],
      [other, credit],
    ] as const) {
      await expect(creditMerchant(db(), clock, 'cli:op', catalog, m, input)).rejects.toMatchObject({
        code: 'reference_conflict',
        message: expect.stringContaining('T-4411'),
      });
    }
    await expect(debitMerchant(db(), clock, 'cli:op', catalog, id, credit)).rejects.toMatchObject({
      code: 'reference_conflict',
    });
    expect((await balance(db(), id, 'USDT_TRON')).available).toBe(25_000_000n);
    expect(await balances(db(), other)).toEqual([]);
    expect((await listAudit(db(), 'merchant', id)).filter((a) => a.action === 'ledger.credit')).toHaveLength(1);
    // Debits are idempotent the same way; without --reference every call books (as before).
    const debit = { asset: 'USDT_TRON', amount: '5', memo: 'refund fee', reference: 'T-4412' };
    const d1 = await debitMerchant(db(), clock, 'cli:op', catalog, id, debit);
    expect((await debitMerchant(db(), clock, 'cli:op', catalog, id, debit)).entry_id).toBe(d1.entry_id);
    await creditMerchant(db(), clock, 'cli:op', catalog, id, { asset: 'USDT_TRON', amount: '1', memo: 'no ref' });
    await creditMerchant(db(), clock, 'cli:op', catalog, id, { asset: 'USDT_TRON', amount: '1', memo: 'no ref' });
    expect((await balance(db(), id, 'USDT_TRON')).available).toBe(22_000_000n);
    await expect(
      creditMerchant(db(), clock, 'cli:op', catalog, id, { ...credit, reference: 'has space' }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(await verifyLedger(db(), id, 'USDT_TRON')).toEqual([]);
  });

  it('moves exactly one running total per kind of entry', () => {
    const z = { balance: 100n, reserved: 30n };
    expect(applyEntry(z, 'credit', 5n)).toEqual({ balance: 105n, reserved: 30n });
    expect(applyEntry(z, 'debit', 5n)).toEqual({ balance: 95n, reserved: 30n });
    expect(applyEntry(z, 'reserve', 5n)).toEqual({ balance: 100n, reserved: 35n });
    expect(applyEntry(z, 'release', 5n)).toEqual({ balance: 100n, reserved: 25n });
  });

  it('derives available = credits − debits − active reservations from the entries', async () => {
    const m = await merchant();
    expect(await balance(db(), m, 'USDT_TRON')).toEqual({
      asset: 'USDT_TRON',
      balance: 0n,
      reserved: 0n,
      available: 0n,
    });
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'credit', amount: 100_000_000n, actor: 't' });
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'credit', amount: 50_000_000n, actor: 't' });
    await postTx({
      merchantId: m,
      asset: 'USDT_TRON',
      kind: 'reserve',
      amount: 30_000_000n,
      payoutId: 'p1',
      actor: 't',
    });
    await postTx({
      merchantId: m,
      asset: 'USDT_TRON',
      kind: 'reserve',
      amount: 20_000_000n,
      payoutId: 'p2',
      actor: 't',
    });
    // p1 rejected: released. p2 confirmed: released and debited.
    await postTx({
      merchantId: m,
      asset: 'USDT_TRON',
      kind: 'release',
      amount: 30_000_000n,
      payoutId: 'p1',
      actor: 't',
    });
    await postTx({
      merchantId: m,
      asset: 'USDT_TRON',
      kind: 'release',
      amount: 20_000_000n,
      payoutId: 'p2',
      actor: 't',
    });
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'debit', amount: 20_000_000n, payoutId: 'p2', actor: 't' });
    await postTx({
      merchantId: m,
      asset: 'USDT_TRON',
      kind: 'reserve',
      amount: 1_000_000n,
      payoutId: 'p3',
      actor: 't',
    });
    expect(await balance(db(), m, 'USDT_TRON')).toEqual({
      asset: 'USDT_TRON',
      balance: 130_000_000n,
      reserved: 1_000_000n,
      available: 129_000_000n,
    });
    expect(await heldReservation(db(), m, 'p3')).toBe(1_000_000n);
    expect(await heldReservation(db(), m, 'p2')).toBe(0n);
    expect(await verifyLedger(db(), m, 'USDT_TRON')).toEqual([]);
    // Recomputing by hand from the raw rows gives the same figures.
    const rows = await db().selectFrom('ledger_entries').selectAll().where('merchant_id', '=', m).execute();
    const sum = (k: string) => rows.filter((r) => r.kind === k).reduce((a, r) => a + BigInt(r.amount), 0n);
    expect(sum('credit') - sum('debit')).toBe(130_000_000n);
    expect(sum('reserve') - sum('release')).toBe(1_000_000n);
  });

  it('keeps assets and merchants apart', async () => {
    const a = await merchant();
    const b = await merchant();
    await postTx({ merchantId: a, asset: 'USDT_TRON', kind: 'credit', amount: 7n, actor: 't' });
    await postTx({ merchantId: a, asset: 'TRX_TRON', kind: 'credit', amount: 9n, actor: 't' });
    await postTx({ merchantId: b, asset: 'USDT_TRON', kind: 'credit', amount: 11n, actor: 't' });
    expect((await balances(db(), a)).map((x) => [x.asset, x.available])).toEqual([
      ['TRX_TRON', 9n],
      ['USDT_TRON', 7n],
    ]);
    expect((await balances(db(), b)).map((x) => [x.asset, x.available])).toEqual([['USDT_TRON', 11n]]);
  });

  it('refuses a reservation above the available balance with insufficient_balance and writes nothing', async () => {
    const m = await merchant();
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'credit', amount: 10n, actor: 't' });
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'reserve', amount: 6n, payoutId: 'r1', actor: 't' });
    await expect(
      postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'reserve', amount: 5n, payoutId: 'r2', actor: 't' }),
    ).rejects.toMatchObject({
      code: 'insufficient_balance',
    });
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'reserve', amount: 4n, payoutId: 'r3', actor: 't' });
    expect((await balance(db(), m, 'USDT_TRON')).available).toBe(0n);
    // A release or debit that would go below zero is a bug, never silently applied.
    await expect(
      postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'release', amount: 11n, payoutId: 'r9', actor: 't' }),
    ).rejects.toThrow(/negative/);
    await expect(postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'credit', amount: 0n, actor: 't' })).rejects.toThrow(
      /non-positive/,
    );
    expect(await verifyLedger(db(), m, 'USDT_TRON')).toEqual([]);
  });

  it('never lets a payout be released or debited twice (UNIQUE payout_id, kind)', async () => {
    const m = await merchant();
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'credit', amount: 100n, actor: 't' });
    // Another payout's reservation is outstanding, so a second release would not go negative.
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'reserve', amount: 50n, payoutId: 'other', actor: 't' });
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'reserve', amount: 40n, payoutId: 'dup', actor: 't' });
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'release', amount: 40n, payoutId: 'dup', actor: 't' });
    const byPayout = ['payout_id', 'kind'];
    expect(
      await refusedBy(
        postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'release', amount: 40n, payoutId: 'dup', actor: 't' }),
        byPayout,
      ),
    ).toBe(true);
    expect(
      await refusedBy(
        postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'reserve', amount: 1n, payoutId: 'dup', actor: 't' }),
        byPayout,
      ),
    ).toBe(true);
    expect(await balance(db(), m, 'USDT_TRON')).toMatchObject({ available: 50n, reserved: 50n });
  });

  it('books a source (a settled deposit) at most once', async () => {
    const m = await merchant();
    const credit = () =>
      postTx({
        merchantId: m,
        asset: 'USDT_TRON',
        kind: 'credit',
        amount: 5n,
        sourceRef: `deposit:${m}:0`,
        actor: 'watcher',
      });
    await credit();
    expect(await refusedBy(credit(), ['source_ref'])).toBe(true);
    expect((await balance(db(), m, 'USDT_TRON')).balance).toBe(5n);
  });

  it('refuses to edit or fork the tail: the sequence is unique per merchant and asset', async () => {
    const m = await merchant();
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'credit', amount: 1n, actor: 't' });
    const forked = db()
      .insertInto('ledger_entries')
      .values({
        merchant_id: m,
        asset: 'USDT_TRON',
        seq: 1,
        kind: 'credit',
        amount: '1000',
        balance_after: '1000',
        reserved_after: '0',
        payout_id: null,
        source_ref: null,
        memo: null,
        actor: 'x',
        created_at: 'x',
      })
      .execute();
    expect(await refusedBy(forked, ['merchant_id', 'asset', 'seq'])).toBe(true);
  });

  it('detects a tampered running total', async () => {
    const m = await merchant();
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'credit', amount: 5n, actor: 't' });
    await postTx({ merchantId: m, asset: 'USDT_TRON', kind: 'credit', amount: 5n, actor: 't' });
    await db()
      .updateTable('ledger_entries')
      .set({ balance_after: '999' })
      .where('merchant_id', '=', m)
      .where('seq', '=', 2)
      .execute();
    expect(await verifyLedger(db(), m, 'USDT_TRON')).toEqual([
      expect.stringMatching(/balance_after 999, recomputed 10/),
    ]);
  });

  it('holds 18-decimal amounts past SQLite INTEGER range exactly', async () => {
    const m = await merchant();
    const big = 123_456_789n * 10n ** 18n + 1n;
    await postTx({ merchantId: m, asset: 'USDD_TRON', kind: 'credit', amount: big, actor: 't' });
    await postTx({ merchantId: m, asset: 'USDD_TRON', kind: 'credit', amount: big, actor: 't' });
    expect((await balance(db(), m, 'USDD_TRON')).balance).toBe(2n * big);
    expect((await merchantBalances(db(), catalog, m)).balances).toEqual([
      {
        asset: 'USDD_TRON',
        available: '246913578.000000000000000002',
        reserved: '0',
        total: '246913578.000000000000000002',
      },
    ]);
  });

  it('ledger credit: one entry and one audit record; refuses bad input', async () => {
    const m = await merchant();
    const v = await creditMerchant(db(), clock, 'cli:op', catalog, m, {
      asset: 'USDT_TRON',
      amount: '12.5',
      memo: ' correction #1 ',
    });
    expect(v).toMatchObject({
      merchant_id: m,
      asset: 'USDT_TRON',
      amount: '12.5',
      memo: 'correction #1',
      balance: { available: '12.5', reserved: '0', total: '12.5' },
    });
    const audit = await listAudit(db(), 'merchant', m);
    expect(audit.at(-1)).toMatchObject({ actor: 'cli:op', action: 'ledger.credit', at: clock.now().toISOString() });
    expect(JSON.parse(audit.at(-1)!.details)).toMatchObject({
      asset: 'USDT_TRON',
      amount: '12.5',
      memo: 'correction #1',
    });
    const bad = (over: Record<string, string>, id = m) =>
      creditMerchant(db(), clock, 'op', catalog, id, { asset: 'USDT_TRON', amount: '1', memo: 'x', ...over });
    await expect(bad({}, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'merchant_not_found' });
    await expect(bad({ asset: 'FOO_TRON' })).rejects.toMatchObject({ code: 'asset_not_found' });
    for (const amount of ['0', '-1', '1.0000001', 'abc'])
      await expect(bad({ amount })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(bad({ memo: '  ' })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect((await balance(db(), m, 'USDT_TRON')).balance).toBe(12_500_000n);
  });
});
