/**
 * The sweeper's full scan in slices (src/sweeper/scan.ts) over a real SQLite file: where slices
 * end, where a slice cut short resumes, how a pass is paced. No node involved: nothing is checked,
 * so every pair stays due and each pass finds all of them again.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createMerchant } from '../../src/merchants/service.js';
import { allDuePairs, FullScan, scanSlice } from '../../src/sweeper/scan.js';
import { upsertMark } from '../../src/sweeper/store.js';
import { tempDir } from '../helpers/app.js';
import { insertFinalDeposit } from './fixture.js';
import { openTestDatabase } from '../helpers/database.js';

let database: Database;
let merchantId: string;

beforeEach(async () => {
  database = await openTestDatabase(path.join(tempDir('paygate-scan-'), 'paygate.db'));
  await migrateToLatest(database.db);
  merchantId = (await createMerchant(database.db, systemClock, 'test', { name: 'Scan shop' })).merchant_id;
});
afterEach(() => database.close());

/** Addresses in the order the scan walks them. */
const addr = (i: number) => `TAddress${String(i).padStart(4, '0')}`;
const deposit = (address: string, asset = 'USDT_TRON', block = 100) =>
  insertFinalDeposit(database.db, merchantId, { address, asset, amount: 1_000_000n, block });
const pairsOf = (ps: { address: string; asset: string }[]) => ps.map((p) => `${p.address} ${p.asset}`);

describe('a slice', () => {
  it('reads the next `size` final deposits and says where the next one starts; the last says none', async () => {
    for (let i = 0; i < 5; i++) await deposit(addr(i));
    const first = await scanSlice(database.db, { address: '', asset: null }, 2, 50);
    expect(pairsOf(first.pairs)).toEqual([`${addr(0)} USDT_TRON`, `${addr(1)} USDT_TRON`]);
    expect(first.next).toEqual({ address: addr(1), asset: null });
    const second = await scanSlice(database.db, first.next!, 2, 50);
    expect(pairsOf(second.pairs)).toEqual([`${addr(2)} USDT_TRON`, `${addr(3)} USDT_TRON`]);
    const last = await scanSlice(database.db, second.next!, 2, 50);
    expect(pairsOf(last.pairs)).toEqual([`${addr(4)} USDT_TRON`]);
    expect(last.next).toBeNull();
  });

  it('cut short by the room left resumes right after the last pair given, between two assets of one address', async () => {
    await deposit(addr(0), 'TRX_TRON');
    await deposit(addr(0), 'USDT_TRON');
    await deposit(addr(1), 'USDT_TRON');
    const seen: string[] = [];
    let from = { address: '', asset: null as string | null };
    for (;;) {
      const s = await scanSlice(database.db, from, 10, 1);
      seen.push(...pairsOf(s.pairs));
      if (!s.next) break;
      from = s.next;
    }
    expect(seen).toEqual([`${addr(0)} TRX_TRON`, `${addr(0)} USDT_TRON`, `${addr(1)} USDT_TRON`]);
  });

  it('takes every deposit of an address with more of them than a slice, and moves on', async () => {
    for (let b = 1; b <= 5; b++) await deposit(addr(0), 'USDT_TRON', b);
    await deposit(addr(1));
    expect(await allDuePairs(database.db, 100, 2)).toEqual([
      { address: addr(0), asset: 'USDT_TRON', last_block: 5 },
      { address: addr(1), asset: 'USDT_TRON', last_block: 100 },
    ]);
  });

  it('leaves out pairs checked at or above their last final deposit', async () => {
    await deposit(addr(0));
    await deposit(addr(1));
    await upsertMark(database.db, {
      address: addr(0),
      asset: 'USDT_TRON',
      checked_block: 100,
      balance: '0',
      checked_at: new Date().toISOString(),
    });
    expect(pairsOf(await allDuePairs(database.db, 100, 1))).toEqual([`${addr(1)} USDT_TRON`]);
  });
});

describe('a request for every due pair', () => {
  it('walks every slice, up to its limit', async () => {
    for (let i = 0; i < 7; i++) await deposit(addr(i));
    expect(pairsOf(await allDuePairs(database.db, 100, 2))).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) => `${addr(i)} USDT_TRON`),
    );
    expect(pairsOf(await allDuePairs(database.db, 3, 2))).toEqual([0, 1, 2].map((i) => `${addr(i)} USDT_TRON`));
  });
});

describe('passes', () => {
  it('wait `passMs` from one start to the next, and are paced by the size of the previous pass', async () => {
    for (let i = 0; i < 40; i++) await deposit(addr(i));
    const scan = new FullScan(database.db, {
      slice: 2,
      passMs: 100_000,
      maxSlicesPerTick: 8,
      firstPassSlicesPerTick: 8,
    });
    const t0 = 1_000_000;
    // The first pass knows no size: its own number of slices a tick (8 here, of 2 deposits).
    expect(await scan.next(t0, 50)).toHaveLength(16);
    expect(await scan.next(t0 + 1, 50)).toHaveLength(16);
    expect(await scan.next(t0 + 2, 50)).toHaveLength(8); // the last 4 slices: the pass is over
    expect(scan.passes).toBe(1);
    expect(await scan.next(t0 + 99_999, 50)).toEqual([]); // the next pass is not due yet

    // 21 slices last time (the last found nothing left), 100 s per pass: one slice at the start,
    // then as many as keep pace (6 by a quarter of the time, 11 by half), at most 8 per tick.
    const t1 = t0 + 100_000;
    expect(await scan.next(t1, 50)).toHaveLength(2);
    expect(await scan.next(t1 + 25_000, 50)).toHaveLength(10);
    expect(await scan.next(t1 + 50_000, 50)).toHaveLength(10);
    expect(await scan.next(t1 + 100_000, 50)).toHaveLength(16);
    expect(await scan.next(t1 + 100_001, 50)).toHaveLength(2);
    expect(scan.passes).toBe(2);
  });

  it('start gently: the first pass takes its own few slices a tick, whatever the pace allows', async () => {
    for (let i = 0; i < 20; i++) await deposit(addr(i));
    const scan = new FullScan(database.db, { slice: 2, passMs: 100_000, maxSlicesPerTick: 8 });
    // Default: 2 slices of 2 deposits a tick until the first pass ends.
    for (let tick = 0; tick < 5; tick++) expect(await scan.next(tick, 50)).toHaveLength(4);
    expect(scan.passes).toBe(0);
    expect(await scan.next(5, 50)).toEqual([]); // the 11th slice finds nothing left
    expect(scan.passes).toBe(1);
  });

  it('take no more pairs than the room left, and find every pair once per pass', async () => {
    for (let i = 0; i < 9; i++) await deposit(addr(i));
    const scan = new FullScan(database.db, { slice: 4, passMs: 100_000, maxSlicesPerTick: 1 });
    const found: string[] = [];
    for (let tick = 0; tick < 6; tick++) found.push(...pairsOf(await scan.next(tick, 3)));
    expect(found).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => `${addr(i)} USDT_TRON`));
    expect(scan.passes).toBe(1);
  });
});
