/** Review limits, the state machine's money movements and the halts, at service level. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { listAudit } from '../../src/audit/store.js';
import { ManualClock } from '../../src/clock.js';
import { writeTx } from '../../src/db/database.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { balance, post, verifyLedger } from '../../src/ledger/service.js';
import { createMerchant } from '../../src/merchants/service.js';
import { assertRequestsNotHalted, isWorkerHalted, listHalts, setHalt } from '../../src/payouts/halts.js';
import { exceedsLimit, parseLimit, payoutLimits, setPayoutLimits } from '../../src/payouts/limits.js';
import { listPayouts } from '../../src/payouts/operator.js';
import { utcDay } from '../../src/payouts/review.js';
import { findPayoutForOperator, insertPayout, NOT_SIGNED, type PayoutRow } from '../../src/payouts/store.js';
import { NEXT, transitionPayout } from '../../src/payouts/transitions.js';
import { newAddress, openTempDb } from './fixture.js';

describe('limits', () => {
  it('parses decimal limits and "none"', () => {
    expect(parseLimit('--x', '1000')).toBe('1000');
    expect(parseLimit('--x', '12.500')).toBe('12.5');
    expect(parseLimit('--x', '0')).toBe('0');
    expect(parseLimit('--x', 'none')).toBeNull();
    for (const bad of ['-1', '1e3', '', ' 1', '01', 'unlimited'])
      expect(() => parseLimit('--x', bad), bad).toThrow(/--x must be/);
  });

  it('compares base units with a decimal limit exactly', () => {
    expect(exceedsLimit(50_000_000n, 6, '50')).toBe(false);
    expect(exceedsLimit(50_000_001n, 6, '50')).toBe(true);
    expect(exceedsLimit(1n, 6, '0')).toBe(true);
    expect(exceedsLimit(12_345_000n, 6, '12.345')).toBe(false);
    expect(exceedsLimit(12_345_001n, 6, '12.345')).toBe(true);
    // A limit finer than the asset's base unit.
    expect(exceedsLimit(1n, 0, '0.5')).toBe(true);
    expect(exceedsLimit(10n ** 18n, 18, '1')).toBe(false);
  });

  it('puts the UTC day around any moment', () => {
    expect(utcDay(new Date('2026-03-01T23:59:59.999Z'))).toEqual({
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-02T00:00:00.000Z',
    });
    expect(utcDay(new Date('2026-03-02T00:00:00.000Z')).from).toBe('2026-03-02T00:00:00.000Z');
  });
});

describe('payout state machine, limits and halts (service level)', () => {
  let h: Awaited<ReturnType<typeof openTempDb>>;
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  const catalog = loadCatalog('devnet');
  const db = () => h.database.db;

  beforeAll(async () => {
    h = await openTempDb();
  });
  afterAll(() => h.close());

  /** A merchant with 100 USDT and a payout of 10 + fee 1 reserved, in `status`. */
  async function payoutIn(status: PayoutRow['status']): Promise<PayoutRow> {
    const m = (await createMerchant(db(), clock, 'test', { name: 'S' })).merchant_id;
    await creditMerchant(db(), clock, 'test', catalog, m, { asset: 'USDT_TRON', amount: '100', memo: 'seed' });
    const row: PayoutRow = {
      id: randomUUID(),
      merchant_id: m,
      reference: 'r',
      status,
      asset: 'USDT_TRON',
      network: 'tron',
      decimals: 6,
      to_address: newAddress(),
      amount: '10000000',
      fee_amount: '1000000',
      fee_charged: '0',
      fee_schedule_id: null,
      review_reasons: '[]',
      tx_hash: null,
      reviewed_by: null,
      reviewed_at: null,
      reject_reason: null,
      ...NOT_SIGNED,
      created_at: clock.now().toISOString(),
      updated_at: clock.now().toISOString(),
    };
    await writeTx(db(), async (trx) => {
      await insertPayout(trx, row);
      await post(trx, clock, {
        merchantId: m,
        asset: 'USDT_TRON',
        kind: 'reserve',
        amount: 11_000_000n,
        payoutId: row.id,
        actor: 'test',
      });
    });
    return row;
  }
  const move = (row: PayoutRow, to: PayoutRow['status']) =>
    writeTx(db(), (trx) => transitionPayout(trx, clock, row, { to, actor: 'worker' }));

  it('debits amount + fee on confirmed and shows the fee as charged', async () => {
    let row = await payoutIn('approved');
    for (const to of ['queued', 'signing', 'broadcast', 'confirmed'] as const) row = (await move(row, to)).row;
    const b = await balance(db(), row.merchant_id, 'USDT_TRON');
    expect(b).toMatchObject({ balance: 89_000_000n, reserved: 0n, available: 89_000_000n });
    const stored = await findPayoutForOperator(db(), row.id);
    expect(stored).toMatchObject({ status: 'confirmed', fee_charged: '1000000' });
    const events = await db()
      .selectFrom('events')
      .select(['type', 'data'])
      .where('subject_id', '=', row.id)
      .orderBy('seq')
      .execute();
    expect(events.map((e) => e.type)).toEqual([
      'payout.queued',
      'payout.signing',
      'payout.broadcast',
      'payout.confirmed',
    ]);
    expect(JSON.parse(events.at(-1)!.data).fees.network).toEqual({ payer: 'merchant', amount: '1', charged: '1' });
    expect(await verifyLedger(db(), row.merchant_id, 'USDT_TRON')).toEqual([]);
  });

  it('releases the reservation on failed, charging nothing', async () => {
    let row = await payoutIn('approved');
    for (const to of ['queued', 'signing', 'broadcast', 'failed'] as const) row = (await move(row, to)).row;
    expect(await balance(db(), row.merchant_id, 'USDT_TRON')).toMatchObject({ balance: 100_000_000n, reserved: 0n });
    expect((await findPayoutForOperator(db(), row.id))!.fee_charged).toBe('0');
  });

  it('refuses transitions the machine does not have, and a stale one (changed meanwhile)', async () => {
    const row = await payoutIn('pending_review');
    await expect(move(row, 'queued')).rejects.toMatchObject({ code: 'invalid_state' });
    await move(row, 'rejected');
    // `row` is the stale copy read as pending_review: a second reject must not release twice.
    await expect(move(row, 'rejected')).rejects.toMatchObject({ code: 'invalid_state' });
    expect(await balance(db(), row.merchant_id, 'USDT_TRON')).toMatchObject({ balance: 100_000_000n, reserved: 0n });
    for (const end of ['confirmed', 'rejected', 'failed'] as const) expect(NEXT[end]).toEqual([]);
  });

  it('stores per-merchant limits with defaults 0 (review everything) and none, audited', async () => {
    const m = (await createMerchant(db(), clock, 'test', { name: 'L' })).merchant_id;
    expect(await payoutLimits(db(), m)).toEqual({ autoApproveLimit: '0', dailyLimit: null });
    expect(await setPayoutLimits(db(), clock, 'cli:op', m, { dailyLimit: '500' })).toEqual({
      payout_auto_approve_limit: '0',
      payout_daily_limit: '500',
    });
    expect(await setPayoutLimits(db(), clock, 'cli:op', m, { autoApproveLimit: null })).toEqual({
      payout_auto_approve_limit: 'none',
      payout_daily_limit: '500',
    });
    expect((await listAudit(db(), 'merchant', m)).filter((a) => a.action === 'merchant.payout_limits')).toHaveLength(2);
    await expect(
      setPayoutLimits(db(), clock, 'op', '00000000-0000-4000-8000-000000000000', { dailyLimit: '1' }),
    ).rejects.toMatchObject({ code: 'merchant_not_found' });
  });

  it('halts requests per asset or for all; --worker stops the worker too; audited', async () => {
    await assertRequestsNotHalted(db(), 'USDT_TRON');
    await setHalt(db(), clock, 'cli:op', catalog, { asset: 'USDT_TRON', halted: true, worker: false });
    await expect(assertRequestsNotHalted(db(), 'USDT_TRON')).rejects.toMatchObject({ code: 'payouts_halted' });
    await assertRequestsNotHalted(db(), 'TRX_TRON');
    expect(await isWorkerHalted(db(), 'USDT_TRON')).toBe(false);
    // The stronger brake never leaves the API open: --worker halts requests and the worker.
    await setHalt(db(), clock, 'cli:op', catalog, { halted: true, worker: true });
    expect(await isWorkerHalted(db(), 'TRX_TRON')).toBe(true);
    await expect(assertRequestsNotHalted(db(), 'TRX_TRON')).rejects.toMatchObject({ code: 'payouts_halted' });
    // A plain resume reopens requests and keeps the worker halted (a staged restart).
    await setHalt(db(), clock, 'cli:op', catalog, { halted: false, worker: false });
    await assertRequestsNotHalted(db(), 'TRX_TRON');
    expect(await isWorkerHalted(db(), 'TRX_TRON')).toBe(true);
    // Resuming everything does not lift the asset's own halt.
    await expect(assertRequestsNotHalted(db(), 'USDT_TRON')).rejects.toMatchObject({ code: 'payouts_halted' });
    await setHalt(db(), clock, 'cli:op', catalog, { asset: 'USDT_TRON', halted: false, worker: false });
    await setHalt(db(), clock, 'cli:op', catalog, { halted: false, worker: true });
    expect(await listHalts(db())).toEqual([]);
    await expect(
      setHalt(db(), clock, 'op', catalog, { asset: 'FOO_TRON', halted: true, worker: false }),
    ).rejects.toMatchObject({ code: 'asset_not_found' });
    const trail = await db()
      .selectFrom('audit_log')
      .select(['action', 'subject_id', 'details'])
      .where('subject_type', '=', 'payout_halt')
      .orderBy('id')
      .execute();
    expect(trail.map((a) => `${a.action}:${a.subject_id}:${JSON.parse(a.details).brakes.join('+')}`)).toEqual([
      'payout.halt:USDT_TRON:requests',
      'payout.halt:*:requests+worker',
      'payout.resume:*:requests',
      'payout.resume:USDT_TRON:requests',
      'payout.resume:*:requests+worker',
    ]);
  });

  it('lists payouts for the operator by status and refuses unknown statuses', async () => {
    const row = await payoutIn('pending_review');
    const pending = await listPayouts(db(), { status: 'pending_review', merchantId: row.merchant_id });
    expect(pending.map((p) => p.payout_id)).toEqual([row.id]);
    expect(pending[0]).toMatchObject({
      merchant_id: row.merchant_id,
      amount: '10',
      fees: { network: { amount: '1', charged: '0' } },
    });
    await expect(listPayouts(db(), { status: 'done' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
