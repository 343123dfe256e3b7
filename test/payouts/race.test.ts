/**
 * Idempotency and the balance across processes (several API replicas, or serve and a CLI, on one
 * SQLite file): the IMMEDIATE transaction and UNIQUE (merchant_id, reference) hold there too.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { writeTx } from '../../src/db/database.js';
import { verifyLedger } from '../../src/ledger/service.js';
import { isReferenceConflict } from '../../src/payouts/service.js';
import { insertPayout, NOT_SIGNED } from '../../src/payouts/store.js';
import { newAddress, startPayoutApp, type PayoutTestApp } from './fixture.js';

const CHILD = path.resolve(import.meta.dirname, 'race-child.ts');

type Outcome = { created?: boolean; payout_id?: string; error?: string };

function child(args: string[]): Promise<Outcome[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Outcome[]) : reject(new Error(`child exited ${code}: ${err}`)),
    );
  });
}

describe('payouts across processes', () => {
  let t: PayoutTestApp;
  beforeAll(async () => {
    // The children use the system clock: whitelist entries must be usable for it.
    t = await startPayoutApp({ clock: new ManualClock(new Date()) });
  });
  afterAll(() => t.close());

  it('4 processes × 5 identical requests make exactly one payout and one reservation', async () => {
    const { merchant } = await t.merchant();
    const address = newAddress();
    await t.fund(merchant.merchant_id, '100');
    await t.allow(merchant.merchant_id, address);
    const args = [t.app.config.databaseUrl, merchant.merchant_id, address, 'same-ref', '5'];
    const outcomes = (await Promise.all([child(args), child(args), child(args), child(args)])).flat();
    expect(outcomes.filter((o) => o.error)).toEqual([]);
    expect(outcomes.filter((o) => o.created)).toHaveLength(1);
    expect(new Set(outcomes.map((o) => o.payout_id)).size).toBe(1);
    const db = t.app.services.db;
    expect(
      await db.selectFrom('payouts').select('id').where('merchant_id', '=', merchant.merchant_id).execute(),
    ).toHaveLength(1);
    expect(
      await db
        .selectFrom('ledger_entries')
        .select('id')
        .where('merchant_id', '=', merchant.merchant_id)
        .where('kind', '=', 'reserve')
        .execute(),
    ).toHaveLength(1);
    expect(await t.balanceOf(merchant.merchant_id)).toEqual({ available: '90', reserved: '10', total: '100' });
  });

  it('4 processes racing distinct payouts for a balance that fits 5 never overdraw it', async () => {
    const { merchant } = await t.merchant();
    const address = newAddress();
    await t.fund(merchant.merchant_id, '55');
    await t.allow(merchant.merchant_id, address);
    const args = [t.app.config.databaseUrl, merchant.merchant_id, address, 'distinct', '4'];
    const outcomes = (await Promise.all([child(args), child(args), child(args), child(args)])).flat();
    expect(outcomes.filter((o) => o.created)).toHaveLength(5);
    expect(outcomes.filter((o) => !o.created).map((o) => o.error)).toEqual(Array(11).fill('insufficient_balance'));
    expect(await t.balanceOf(merchant.merchant_id)).toEqual({ available: '5', reserved: '50', total: '55' });
    expect(await verifyLedger(t.app.services.db, merchant.merchant_id, 'USDT_TRON')).toEqual([]);
  });

  it('recognises the unique-reference violation that a lost race would raise', async () => {
    const { merchant } = await t.merchant();
    const row = {
      id: '3b241101-e2bb-4255-8caf-4136c566a962',
      merchant_id: merchant.merchant_id,
      reference: 'dup',
      status: 'approved' as const,
      asset: 'USDT_TRON',
      network: 'tron',
      decimals: 6,
      to_address: newAddress(),
      amount: '1',
      fee_amount: '0',
      fee_charged: '0',
      fee_schedule_id: null,
      review_reasons: '[]',
      tx_hash: null,
      reviewed_by: null,
      reviewed_at: null,
      reject_reason: null,
      ...NOT_SIGNED,
      created_at: 'x',
      updated_at: 'x',
    };
    const { db } = t.app.services;
    await writeTx(db, (trx) => insertPayout(trx, row));
    const err = await writeTx(db, (trx) =>
      insertPayout(trx, { ...row, id: '4b241101-e2bb-4255-8caf-4136c566a962' }),
    ).catch((e: unknown) => e);
    expect(isReferenceConflict(err)).toBe(true);
    const otherErr = await writeTx(db, (trx) => insertPayout(trx, { ...row, reference: 'other' })).catch(
      (e: unknown) => e,
    );
    expect(isReferenceConflict(otherErr)).toBe(false);
  });
});
