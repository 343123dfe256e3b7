/**
 * The sweeper recovering, against the devnet with real signatures: a transfer forked away or
 * refused for its reference block, a failed step, a crash between signing and broadcasting, a
 * lost broadcast answer, a node whose backend lags.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TronClient } from '../../src/chain/client.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { ManualClock } from '../../src/clock.js';
import {
  balances,
  closeWithoutSecrets,
  sweepFixture,
  sweepsOf,
  txsOf,
  TRX,
  USDT,
  type SweepFixture,
} from './fixture.js';

let f: SweepFixture;
afterEach(() => closeWithoutSecrets(f));

/** A new fixture whose hot wallet holds 10 TRX and deposit address `index` 30 TRX, 3 blocks deep. */
async function trxDepositWithFundedHot(index: number): Promise<string> {
  f = await sweepFixture();
  f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 10n * TRX, mine: true });
  const d = await f.address(index);
  await f.deposit(d, 'TRX_TRON', 30n * TRX);
  f.devnet.control.mine(3);
  return d;
}

describe('forks', () => {
  it('a transfer whose block is forked away is sent again with the same bytes and counted once', async () => {
    const d = await trxDepositWithFundedHot(13);
    const hotBefore = balances(f, f.hot).trx;
    const sweeper = f.sweeper();
    let transfer;
    for (let i = 0; i < 10; i++) {
      await sweeper.tick();
      transfer = await f.database.db
        .selectFrom('sweep_txs')
        .selectAll()
        .where('status', '=', 'confirmed')
        .executeTakeFirst();
      if (transfer) break;
      f.devnet.control.mine(1);
    }
    expect(transfer?.step).toBe('transfer');
    f.devnet.control.fork(1, 'drop'); // the block holding the transfer
    expect(balances(f, f.hot).trx).toBe(hotBefore); // the transfer is gone from the chain

    await f.run(sweeper);

    const [sweep] = await sweepsOf(f, d);
    expect(sweep?.status).toBe('done');
    expect((await txsOf(f, sweep!.id)).map((t) => [t.txid, t.status])).toEqual([[transfer!.txid, 'confirmed']]);
    expect(balances(f, f.hot).trx).toBe(hotBefore + 30n * TRX);
  });
  it('a transfer refused with TAPOS_ERROR (its reference block forked away) is sent again only until it expires, then signed anew', async () => {
    const d = await trxDepositWithFundedHot(16);
    const real = createTronClient({ fullHost: f.devnet.url });
    const answers: { txid: string; code: string; head: number }[] = [];
    let lost = 1; // the first broadcast never reaches the node
    const chain = new Proxy(real, {
      get: (t, prop, r) =>
        prop === 'broadcast'
          ? async (tx: Parameters<TronClient['broadcast']>[0]) => {
              if (lost-- > 0) throw new Error('connection reset');
              const a = await t.broadcast(tx);
              answers.push({
                txid: tx.txID,
                code: a.ok ? 'SUCCESS' : a.code,
                head: (await t.getHeadBlock()).timestamp,
              });
              return a;
            }
          : (Reflect.get(t, prop, r) as unknown),
    });
    const sweeper = f.sweeper({ chain });
    await sweeper.tick(); // signed and stored, never sent
    const [stored] = await f.database.db.selectFrom('sweep_txs').selectAll().execute();
    f.devnet.control.fork(1, 'drop'); // the block it refers to is gone: no node can take it now

    await f.run(sweeper, 90); // its 60 s to expire, the solid height past that, the new one solid

    const [sweep] = await sweepsOf(f, d);
    expect(sweep?.status).toBe('done');
    expect((await txsOf(f, sweep!.id)).map((t) => [t.txid, t.status, t.broadcast_code])).toEqual([
      [stored!.txid, 'expired', 'TAPOS_ERROR'],
      [expect.any(String), 'confirmed', null],
    ]);
    // Refused each time it was sent again, and never sent again once its expiration was behind.
    const refused = answers.filter((a) => a.txid === stored!.txid);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((a) => a.code === 'TAPOS_ERROR' && a.head <= stored!.expiration)).toBe(true);
    expect(balances(f, d).trx).toBe(0n);
  });
});

describe('failed steps', () => {
  it('records an OUT_OF_ENERGY transfer as failed, alerts, and retries it later without losing the funds', async () => {
    const clock = new ManualClock(new Date());
    f = await sweepFixture({ clock });
    f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
    const d = await f.address(12);
    await f.deposit(d, 'USDT_TRON', 100n * USDT);
    // A node that under-estimates energy: the fee limit is too low and the transfer runs out of energy.
    const real = createTronClient({ fullHost: f.devnet.url });
    const lying = new Proxy(real, {
      get: (t, prop, r) =>
        prop === 'estimateTrc20TransferEnergy' ? async () => 1_000n : (Reflect.get(t, prop, r) as unknown),
    });
    await f.run(f.sweeper({ chain: lying }), 6);
    const [sweep] = await sweepsOf(f, d);
    const failed = (await txsOf(f, sweep!.id)).find((t) => t.step === 'transfer');
    expect(failed).toMatchObject({ status: 'failed', receipt_result: 'OUT_OF_ENERGY' });
    expect(BigInt(failed!.fee!)).toBeGreaterThan(0n);
    const after = (await sweepsOf(f, d))[0]!;
    expect(after).toMatchObject({ status: 'open', failures: 1 });
    expect(after.retry_at! > clock.now().toISOString()).toBe(true);
    expect(f.logs()).toMatch(/"alert":"sweep_step_failed"/);
    expect(balances(f, d).tokens.USDT_TRON).toBe(100n * USDT);

    const honest = f.sweeper();
    await honest.tick();
    expect(await txsOf(f, sweep!.id)).toHaveLength(2); // waits for its retry time
    clock.advance(31_000);
    await f.run(honest);
    const done = (await sweepsOf(f, d))[0]!;
    expect(done).toMatchObject({ status: 'done', amount: String(100n * USDT) });
    expect(BigInt(done.fee)).toBeGreaterThanOrEqual(BigInt(failed!.fee!));
    expect(balances(f, d).tokens.USDT_TRON).toBe(0n);
  });
});

describe('crash between signing and broadcasting', () => {
  /** A node client whose process "dies" right after storing a token transfer: it never sends it. */
  function crashingClient(real: TronClient): TronClient {
    return new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'broadcast') {
          return async (tx: Parameters<TronClient['broadcast']>[0]) => {
            if (tx.raw_data.contract[0]?.type === 'TriggerSmartContract') throw new Error('process killed');
            return target.broadcast(tx);
          };
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
  }

  async function crashAtTransfer(index: number): Promise<{ d: string; stored: string }> {
    f = await sweepFixture();
    f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
    const d = await f.address(index);
    await f.deposit(d, 'USDT_TRON', 100n * USDT);
    const crashing = f.sweeper({ chain: crashingClient(createTronClient({ fullHost: f.devnet.url })) });
    for (let i = 0; i < 10; i++) {
      await crashing.tick();
      const signed = await f.database.db
        .selectFrom('sweep_txs')
        .selectAll()
        .where('step', '=', 'transfer')
        .executeTakeFirst();
      if (signed) return { d, stored: signed.txid };
      f.devnet.control.mine(1);
    }
    throw new Error('the transfer was never signed');
  }

  it('a restarted sweeper broadcasts the same stored bytes: one transfer', async () => {
    const { d, stored } = await crashAtTransfer(9);
    expect(balances(f, d).tokens.USDT_TRON).toBe(100n * USDT);
    const hotTokens = balances(f, f.hot).tokens.USDT_TRON;

    await f.run(f.sweeper());

    const [sweep] = await sweepsOf(f, d);
    expect(sweep?.status).toBe('done');
    const transfers = (await txsOf(f, sweep!.id)).filter((t) => t.step === 'transfer');
    expect(transfers.map((t) => [t.txid, t.status])).toEqual([[stored, 'confirmed']]);
    expect(balances(f, f.hot).tokens.USDT_TRON).toBe(hotTokens! + 100n * USDT);
  });

  it('signs anew only once the stored transaction expired and is absent at the solid height', async () => {
    const { d, stored } = await crashAtTransfer(10);
    f.devnet.control.mine(45); // past its expiration (60 s of block time), and solid past it too
    const hotTokens = balances(f, f.hot).tokens.USDT_TRON;

    await f.run(f.sweeper());

    const [sweep] = await sweepsOf(f, d);
    expect(sweep?.status).toBe('done');
    const transfers = (await txsOf(f, sweep!.id)).filter((t) => t.step === 'transfer');
    expect(transfers.map((t) => t.status)).toEqual(['expired', 'confirmed']);
    expect(transfers[0]?.txid).toBe(stored);
    expect(balances(f, f.hot).tokens.USDT_TRON).toBe(hotTokens! + 100n * USDT);
    expect(balances(f, d).tokens.USDT_TRON).toBe(0n);
  });

  it('a broadcast whose answer was lost is not sent twice', async () => {
    f = await sweepFixture();
    f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
    const d = await f.address(11);
    await f.deposit(d, 'TRX_TRON', 25n * TRX);
    f.devnet.control.addFault({ kind: 'lost_answer', path: '/wallet/broadcasttransaction', times: 1 });
    const hotBefore = balances(f, f.hot).trx;

    await f.run();

    const [sweep] = await sweepsOf(f, d);
    expect(sweep?.status).toBe('done');
    expect(f.devnet.control.faults()).toEqual([]); // used up: the first broadcast's answer was lost
    const txs = await txsOf(f, sweep!.id);
    expect(txs.map((t) => [t.step, t.status, t.broadcast_code])).toEqual([
      ['transfer', 'confirmed', 'DUP_TRANSACTION_ERROR'],
    ]);
    expect(balances(f, f.hot).trx).toBe(hotBefore + 25n * TRX);
  });
  it('never signs anew on "not found" answers while the blocks hold the transfer (a lagging backend), and reads the blocks again only once the chain moved on', async () => {
    f = await sweepFixture();
    f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 1_000n * TRX, mine: true });
    const d = await f.address(12);
    await f.deposit(d, 'TRX_TRON', 25n * TRX);
    const hotBefore = balances(f, f.hot).trx;
    // Every txid lookup, full node and solidity, is answered {} as by a backend that lags.
    const lagging = [
      f.devnet.control.addFault({ kind: 'not_found', path: '/wallet/gettransaction' }),
      f.devnet.control.addFault({ kind: 'not_found', path: '/walletsolidity/gettransaction' }),
    ];
    // Passes every block read through, counting them (the proof of absence reads blocks this way).
    const blockReads = f.devnet.control.addFault({ kind: 'latency', ms: 0, path: '/wallet/getblockbylimitnext' });
    const reads = () => f.devnet.control.faults().find((x) => x.id === blockReads.id)?.hits ?? 0;
    const sweeper = f.sweeper();
    for (let i = 0; i < 10 && balances(f, f.hot).trx === hotBefore; i++) {
      await sweeper.tick();
      f.devnet.control.mine(1);
    }
    expect(balances(f, f.hot).trx).toBe(hotBefore + 25n * TRX); // landed; the node says "not found"
    f.devnet.control.mine(45); // past its expiration (60 s of block time), and solid past it too

    await sweeper.tick();
    const firstProof = reads();
    expect(firstProof).toBeGreaterThan(0); // the blocks were read, and they hold the transfer
    for (let i = 0; i < 5; i++) await sweeper.tick();
    expect(reads()).toBe(firstProof); // not again while the solid height stands
    f.devnet.control.mine(20);
    await sweeper.tick();
    expect(reads()).toBeGreaterThan(firstProof); // tried again once it moved 20 blocks

    const [sweep] = await sweepsOf(f, d);
    expect((await txsOf(f, sweep!.id)).map((t) => [t.step, t.status])).toEqual([['transfer', 'broadcast']]);
    for (const x of [...lagging, blockReads]) f.devnet.control.clearFaults(x.id);
    await f.run(sweeper);
    expect((await txsOf(f, sweep!.id)).map((t) => [t.step, t.status])).toEqual([['transfer', 'confirmed']]);
    expect((await sweepsOf(f, d))[0]?.status).toBe('done');
    expect(balances(f, f.hot).trx).toBe(hotBefore + 25n * TRX);
  });
});
