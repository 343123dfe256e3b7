/**
 * The sweeper against the devnet with real signatures: TRC20 with a TRX top-up and with delegated
 * energy, TRX, thresholds, the full scan in slices, a refused key, a lost lease, concurrent runs.
 * Forks, failed steps and crashes: recovery.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TronClient } from '../../src/chain/client.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { ManualClock } from '../../src/clock.js';
import { WorkerLease } from '../../src/runtime/lease.js';
import { requestSweep } from '../../src/sweeper/requests.js';
import {
  balances,
  closeWithoutSecrets,
  insertFinalDeposit,
  sweepFixture,
  sweepsOf,
  txsOf,
  TRX,
  USDT,
  type SweepFixture,
} from './fixture.js';

let f: SweepFixture;
afterEach(() => closeWithoutSecrets(f));

describe('TRC20 sweeps', () => {
  it('tops a fresh address up with TRX from the hot wallet, moves the tokens, and records the cost', async () => {
    f = await sweepFixture();
    f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
    const d = await f.address(0);
    await f.deposit(d, 'USDT_TRON', 100n * USDT);
    const hotBefore = balances(f, f.hot);

    await f.run();

    expect(balances(f, d).tokens.USDT_TRON).toBe(0n);
    expect(balances(f, f.hot).tokens.USDT_TRON).toBe(hotBefore.tokens.USDT_TRON! + 100n * USDT);
    const [sweep] = await sweepsOf(f, d);
    expect(sweep).toMatchObject({
      status: 'done',
      trigger: 'auto',
      asset: 'USDT_TRON',
      balance: '100000000',
      amount: '100000000',
      delegated: '0',
    });
    const txs = await txsOf(f, sweep!.id);
    expect(txs.map((t) => [t.step, t.status])).toEqual([
      ['top_up', 'confirmed'],
      ['transfer', 'confirmed'],
    ]);
    // Activation (1.1 TRX) plus the energy burned at the deposit address: the sweep's cost.
    const fees = txs.reduce((s, t) => s + BigInt(t.fee ?? '0'), 0n);
    expect(BigInt(sweep!.fee)).toBe(fees);
    expect(fees).toBeGreaterThan(1_100_000n + 130_000n * 100n);
    expect(BigInt(sweep!.top_up)).toBe(BigInt(txs[0]!.amount));
    // The hot wallet paid exactly the top-up and the activation fee.
    expect(balances(f, f.hot).trx).toBe(hotBefore.trx - BigInt(sweep!.top_up) - BigInt(txs[0]!.fee ?? '0'));
  });

  it('delegates staked energy from the hot wallet instead of burning TRX, and reclaims it afterwards', async () => {
    f = await sweepFixture();
    f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 100_000n * TRX, mine: true });
    await f.stakeHotForEnergy(50_000n * TRX);
    const d = await f.address(1);
    await f.deposit(d, 'USDT_TRON', 250n * USDT);

    await f.run();

    expect(balances(f, d).tokens.USDT_TRON).toBe(0n);
    const [sweep] = await sweepsOf(f, d);
    expect(sweep?.status).toBe('done');
    const txs = await txsOf(f, sweep!.id);
    expect(txs.map((t) => t.step)).toEqual(['top_up', 'delegate_energy', 'transfer', 'undelegate_energy']);
    expect(txs.every((t) => t.status === 'confirmed')).toBe(true);
    const transfer = txs.find((t) => t.step === 'transfer')!;
    expect(transfer.fee ?? '0').toBe('0'); // energy from the delegation, bandwidth from free points
    expect(BigInt(sweep!.delegated)).toBeGreaterThan(0n);
    const hot = await f.services.chain.getAccount(f.hot);
    expect(hot.delegatedOutEnergy).toBe(0n);
    expect(hot.frozenForEnergy).toBe(50_000n * TRX);
  });
});

describe('TRX sweeps', () => {
  it('sends the whole balance when free bandwidth covers the transfer', async () => {
    f = await sweepFixture();
    f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 10n * TRX, mine: true });
    const d = await f.address(2);
    await f.deposit(d, 'TRX_TRON', 50n * TRX);
    const hotBefore = balances(f, f.hot).trx;

    await f.run();

    const [sweep] = await sweepsOf(f, d);
    expect(sweep).toMatchObject({ status: 'done', asset: 'TRX_TRON', amount: String(50n * TRX), fee: '0' });
    expect(balances(f, d).trx).toBe(0n);
    expect(balances(f, f.hot).trx).toBe(hotBefore + 50n * TRX);
  });
});

describe('thresholds', () => {
  it('leaves a dust balance alone and sweeps once deposits reach the threshold', async () => {
    f = await sweepFixture();
    f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
    const d = await f.address(3);
    await f.deposit(d, 'USDT_TRON', 1n * USDT); // the devnet catalog's threshold is 20 USDT
    const sweeper = f.sweeper(); // one instance: its second look reads only recently final deposits

    await f.run(sweeper, 3);
    expect(await sweepsOf(f, d)).toEqual([]);
    expect(balances(f, d).tokens.USDT_TRON).toBe(1n * USDT);
    const mark = await f.database.db
      .selectFrom('sweep_marks')
      .selectAll()
      .where('address', '=', d)
      .executeTakeFirstOrThrow();
    expect(mark.balance).toBe('1000000');

    await f.deposit(d, 'USDT_TRON', 30n * USDT);
    await f.run(sweeper);
    const [sweep] = await sweepsOf(f, d);
    expect(sweep).toMatchObject({ status: 'done', amount: String(31n * USDT) });
  });

  it('follows the operator threshold over the catalog default', async () => {
    f = await sweepFixture();
    const { setSweepThreshold } = await import('../../src/sweeper/thresholds.js');
    await setSweepThreshold(f.database.db, f.services.clock, 'test', f.services.catalog, 'TRX_TRON', '100');
    const d = await f.address(4);
    await f.deposit(d, 'TRX_TRON', 50n * TRX);
    await f.run(undefined, 3);
    expect(await sweepsOf(f, d)).toEqual([]);
  });
});

describe('the full scan in slices', () => {
  const HOUR = 3_600_000;
  const PASS_MS = 300_000;

  /** A node whose token balance answers are counted per address, and refused for `down` ones. */
  function countingNode(down: Set<string> = new Set()): { chain: TronClient; asked: string[] } {
    const asked: string[] = [];
    const real = createTronClient({ fullHost: f.devnet.url });
    const chain = new Proxy(real, {
      get: (t, prop, r) =>
        prop === 'getTrc20Balance'
          ? async (contract: string, address: string) => {
              asked.push(address);
              if (down.has(address)) throw new Error('node cannot answer for this address');
              return t.getTrc20Balance(contract, address);
            }
          : (Reflect.get(t, prop, r) as unknown),
    });
    return { chain, asked };
  }

  /** Deposit addresses, each with a final USDT deposit the watcher wrote an hour ago (so only the full scan finds it), sorted. */
  async function oldDeposits(clock: ManualClock, from: number, count: number): Promise<string[]> {
    const out: string[] = [];
    for (let i = from; i < from + count; i++) {
      const address = await f.address(i);
      await oldDeposit(clock, address, 'USDT_TRON');
      out.push(address);
    }
    return out.sort();
  }
  const oldDeposit = (clock: ManualClock, address: string, asset: string, block = 10) =>
    insertFinalDeposit(f.database.db, f.merchantId, {
      address,
      asset,
      amount: 1n * USDT,
      block,
      updatedAt: new Date(clock.now().getTime() - HOUR).toISOString(),
    });
  const markOf = (address: string, asset: string) =>
    f.database.db
      .selectFrom('sweep_marks')
      .selectAll()
      .where('address', '=', address)
      .where('asset', '=', asset)
      .executeTakeFirst();

  async function ticks(sweeper: ReturnType<SweepFixture['sweeper']>, asked: string[], n: number): Promise<string[][]> {
    const perTick: string[][] = [];
    for (let i = 0; i < n; i++) {
      const before = asked.length;
      await sweeper.tick();
      perTick.push(asked.slice(before));
    }
    return perTick;
  }

  it('checks each due pair once per pass, a slice per tick, and a pair due behind the cursor on the next pass', async () => {
    const clock = new ManualClock(new Date());
    f = await sweepFixture({ clock });
    const addrs = await oldDeposits(clock, 20, 8);
    const down = new Set(addrs); // the node cannot answer: every pair stays due
    const node = countingNode(down);
    const sweeper = f.sweeper({ chain: node.chain, scan: { slice: 3, maxSlicesPerTick: 1, passMs: PASS_MS } });

    // Slices of 3 deposits: 3 ticks for the 8 addresses, each asked for once; a 4th finds the end.
    expect(await ticks(sweeper, node.asked, 5)).toEqual([addrs.slice(0, 3), addrs.slice(3, 6), addrs.slice(6), [], []]);

    clock.advance(PASS_MS); // the next pass: the same pairs, each once again
    const second = await ticks(sweeper, node.asked, 2);
    expect(second).toEqual([addrs.slice(0, 3), addrs.slice(3, 6)]);
    // Behind the cursor now: an old deposit in another asset (only a pass finds it) and a fresh one.
    await oldDeposit(clock, addrs[0]!, 'USDD_TRON');
    down.delete(addrs[1]!);
    await insertFinalDeposit(f.database.db, f.merchantId, {
      address: addrs[1]!,
      asset: 'USDC_TRON',
      amount: 1n * USDT,
      block: 12,
      updatedAt: clock.now().toISOString(),
    });
    expect(await ticks(sweeper, node.asked, 3)).toEqual([[addrs[1], ...addrs.slice(6)], [], []]); // the fresh one at once
    expect(await markOf(addrs[1]!, 'USDC_TRON')).toMatchObject({ checked_block: 12 });
    expect(await markOf(addrs[0]!, 'USDD_TRON')).toBeUndefined();

    clock.advance(PASS_MS);
    down.clear();
    const third = await ticks(sweeper, node.asked, 4);
    // USDD and USDT of the first address and the second's USDT, up to its slice's end: then the rest.
    expect(third).toEqual([[addrs[0], addrs[0], addrs[1]], addrs.slice(2, 5), addrs.slice(5), []]);
    expect(await markOf(addrs[0]!, 'USDD_TRON')).toMatchObject({ checked_block: 10, balance: '0' });
    for (const a of addrs) expect(await markOf(a, 'USDT_TRON')).toMatchObject({ checked_block: 10, balance: '0' });
  });

  it('checks every due pair of a slice holding more than a tick checks, over successive ticks, none skipped', async () => {
    const clock = new ManualClock(new Date());
    f = await sweepFixture({ clock });
    const addrs = await oldDeposits(clock, 30, 5);
    // The first two cannot be answered for: they must not hold up the rest of the slice.
    const node = countingNode(new Set(addrs.slice(0, 2)));
    const sweeper = f.sweeper({ chain: node.chain, dueBatch: 2, scan: { slice: 100, passMs: PASS_MS } });

    expect(await ticks(sweeper, node.asked, 4)).toEqual([addrs.slice(0, 2), addrs.slice(2, 4), addrs.slice(4), []]);
    for (const a of addrs.slice(2))
      expect(await markOf(a, 'USDT_TRON')).toMatchObject({ checked_block: 10, balance: '0' });
    for (const a of addrs.slice(0, 2)) expect(await markOf(a, 'USDT_TRON')).toBeUndefined();
    expect(f.logs()).toContain('sweep check failed; retried on the next pass of the full scan');

    clock.advance(PASS_MS); // the next pass finds the two left due, and only them
    expect(await ticks(sweeper, node.asked, 2)).toEqual([addrs.slice(0, 2), []]);
  });

  it('keeps a fifth of the batch for the full scan: fresh pairs that stay due cannot starve it', async () => {
    const clock = new ManualClock(new Date());
    f = await sweepFixture({ clock });
    const [old] = await oldDeposits(clock, 50, 1);
    // Five recent pairs the node never answers for: each tick's recent look finds them all again.
    const fresh: string[] = [];
    for (let i = 51; i < 56; i++) {
      const address = await f.address(i);
      await insertFinalDeposit(f.database.db, f.merchantId, {
        address,
        asset: 'USDT_TRON',
        amount: 1n * USDT,
        block: 11,
        updatedAt: clock.now().toISOString(),
      });
      fresh.push(address);
    }
    const node = countingNode(new Set(fresh));
    const sweeper = f.sweeper({ chain: node.chain, dueBatch: 5, scan: { slice: 100, passMs: PASS_MS } });
    const perTick = await ticks(sweeper, node.asked, 3);
    // Four places for the recent look, one for the scan: the old pair is checked on the first tick.
    expect(perTick[0]).toContain(old);
    expect(perTick.flat().filter((a) => a === old)).toHaveLength(1);
    expect(await markOf(old!, 'USDT_TRON')).toMatchObject({ checked_block: 10, balance: '0' });
  });

  it('a `paygate sweep` of every address finds its targets across slices', async () => {
    const clock = new ManualClock(new Date());
    f = await sweepFixture({ clock });
    const addrs = await oldDeposits(clock, 40, 5);
    await requestSweep(f.database.db, clock, 'test', null);
    await f.sweeper({ scan: { slice: 2 } }).tick();
    const req = await f.database.db.selectFrom('sweep_requests').selectAll().executeTakeFirstOrThrow();
    expect(req.status).toBe('done');
    // Nothing on chain at these addresses: each target found, asked for, and empty.
    expect(JSON.parse(req.targets)).toEqual(
      addrs.map((address) => ({ address, asset: 'USDT_TRON', state: 'empty', sweep_id: null })),
    );
  });
});

describe('safety', () => {
  it('refuses an address whose derived key does not give it, with an alert and no transaction', async () => {
    f = await sweepFixture();
    f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
    const d = await f.address(5, 6); // the row says index 6, the address is child 5
    await f.deposit(d, 'USDT_TRON', 100n * USDT);
    const hotBefore = balances(f, f.hot).trx;

    await f.run();

    const [sweep] = await sweepsOf(f, d);
    expect(sweep?.status).toBe('refused');
    expect(await txsOf(f, sweep!.id)).toEqual([]);
    expect(balances(f, d).tokens.USDT_TRON).toBe(100n * USDT);
    expect(balances(f, f.hot).trx).toBe(hotBefore);
    expect(f.logs()).toMatch(/"alert":"sweep_key_mismatch"/);
  });

  it('a process that lost the worker lease records and sends nothing', async () => {
    const clock = new ManualClock(new Date());
    f = await sweepFixture({ clock });
    const d = await f.address(14);
    await f.deposit(d, 'TRX_TRON', 20n * TRX);
    clock.advance(f.lease.ttlMs + 1); // this process stalled past its grant; another took over
    expect(await new WorkerLease(f.database.db, clock, { holder: 'other' }).acquireOrRenew()).toBe(true);

    await f.run(f.sweeper(), 3);

    // Nothing at all: no sweep, no mark, no transaction; the new holder finds the address due.
    expect(await f.database.db.selectFrom('sweep_txs').selectAll().execute()).toEqual([]);
    expect(await f.database.db.selectFrom('sweep_marks').selectAll().execute()).toEqual([]);
    expect(await sweepsOf(f, d)).toEqual([]);
    expect(balances(f, d).trx).toBe(20n * TRX);
    expect(f.logs()).not.toMatch(/"alert"/);
    expect(f.logs()).toContain('worker lease lost: the sweeper stops');
  });

  it('two sweeper runs at once sweep each address once', async () => {
    f = await sweepFixture();
    f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
    const a = await f.address(7);
    const b = await f.address(8);
    await f.deposit(a, 'TRX_TRON', 40n * TRX);
    await f.deposit(b, 'USDT_TRON', 60n * USDT);
    const hotBefore = balances(f, f.hot);
    const one = f.sweeper();
    const two = f.sweeper();
    for (let i = 0; i < 40; i++) {
      await Promise.all([one.tick(), two.tick(), one.tick()]);
      f.devnet.control.mine(1);
    }
    for (const addr of [a, b]) {
      const sweeps = await sweepsOf(f, addr);
      expect(sweeps.map((s) => s.status)).toEqual(['done']);
      const transfers = (await txsOf(f, sweeps[0]!.id)).filter((t) => t.step === 'transfer');
      expect(transfers).toHaveLength(1);
    }
    expect(balances(f, f.hot).tokens.USDT_TRON).toBe(hotBefore.tokens.USDT_TRON! + 60n * USDT);
  });
});
