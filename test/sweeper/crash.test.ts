/**
 * SIGKILL of a real `serve` process (watcher and sweeper, wallet unlocked) while it sweeps: right
 * after a sweep's TRX top-up or energy delegation was recorded and before its token transfer, right
 * after the transfer was recorded and before it confirmed, and at random moments; each time a new
 * process is started on the same file. In the end each deposit address was swept once per asset:
 * one successful transfer to the hot wallet moving exactly what it held, one `done` sweep, the
 * delegations reclaimed, and the merchant ledger still equals the deposits (sweeps never touch it).
 */
import path from 'node:path';
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { systemClock } from '../../src/clock.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { hotWalletPrivateKey, publicInfoOf } from '../../src/wallet/hd.js';
import { initWallet } from '../../src/wallet/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { api } from '../helpers/http.js';
import { ServeChildren } from '../helpers/serve-child.js';
import { expectLedgerMatchesDeposits } from '../helpers/invariants.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';
import { transfersFrom } from '../payouts/worker-fixture.js';

const TRX = 1_000_000n;
const USDT = 1_000_000n;
const HOT = publicInfoOf(TEST_MNEMONIC).hotAddress;
let devnet: Devnet;
let t: TestApp;
let miner: NodeJS.Timeout | undefined;
const serves = new ServeChildren(new URL('./crash-child.ts', import.meta.url).pathname, () => ({
  DATABASE_URL: t.app.config.databaseUrl,
  WALLET_KEYSTORE: path.join(t.dir, 'keystore.json'),
  WALLET_PASSPHRASE: TEST_PASSPHRASE,
  TRON_FULL_NODE_URL: devnet.url,
}));
const startServe = () => serves.start();

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock: systemClock });
  t = await startTestApp({
    workers: false,
    clock: systemClock,
    env: { WALLET_PASSPHRASE: TEST_PASSPHRASE, TRON_FULL_NODE_URL: devnet.url },
  });
  await initWallet(t.app.services.db, systemClock, 'test', t.app.config, {
    mnemonic: TEST_MNEMONIC,
    scrypt: CHEAP_SCRYPT,
  });
});
afterAll(async () => {
  if (miner) clearInterval(miner);
  serves.killAll();
  await t.close();
  await devnet.close();
});

const db = () => t.app.services.db;

/** The sweep transactions recorded so far, as `sweep:step:status`. */
const sweepTxs = async () =>
  (await db().selectFrom('sweep_txs').select(['sweep_id', 'step', 'status']).execute()).map(
    (x) => `${x.sweep_id}:${x.step}:${x.status}`,
  );

type Moment = (before: ReadonlySet<string>, now: string[]) => boolean;

/** Since this process started: a top-up or delegation was broadcast, and its sweep has no transfer yet. */
const afterTopUpBeforeTransfer: Moment = (before, now) =>
  now.some((x) => {
    const [sweep, step, status] = x.split(':');
    return (
      !before.has(x) &&
      (step === 'top_up' || step === 'delegate_energy') &&
      status === 'broadcast' &&
      !now.some((y) => y.startsWith(`${sweep}:transfer:`))
    );
  });

/** Since this process started: a token transfer was recorded (signed or broadcast), not yet confirmed. */
const transferInFlight: Moment = (before, now) =>
  now.some((x) => !before.has(x) && /:transfer:(signed|broadcast)$/.test(x));

describe('sweeps under SIGKILL of serve', () => {
  it(
    'resume after restarts: each address swept once, exactly its balance, delegations reclaimed, ledger intact',
    { timeout: 120_000 },
    async () => {
      const { key } = await t.merchant({ name: 'Swept shop' });
      // The hot wallet: TRX for top-ups and some TRX staked for energy, so sweeps take both paths.
      devnet.control.fund({ address: HOT, asset: 'TRX_TRON', amount: 100_000n * TRX, mine: true });
      const chain = createTronClient({ fullHost: devnet.url });
      const freeze = await chain.sign(
        await chain.buildFreezeBalanceV2({ owner: HOT, amount: 20_000n * TRX, resource: 'ENERGY' }),
        hotWalletPrivateKey(TEST_MNEMONIC),
      );
      expect((await chain.broadcast(freeze)).ok).toBe(true);
      devnet.control.mine(1);

      const paid: { address: string; asset: string; amount: bigint }[] = [];
      for (let i = 0; i < 8; i++) {
        const asset = i % 4 === 3 ? 'TRX_TRON' : 'USDT_TRON';
        const r = await api(t.url, '/v1/invoices', {
          key,
          body: { order_id: `sweep-${i}`, asset, amount: '50', expires_in: 604800 },
        });
        expect(r.status).toBe(201);
        const amount = (asset === 'TRX_TRON' ? TRX : USDT) * BigInt(50 + i);
        devnet.control.pay({ to: r.body.address as string, asset, amount });
        paid.push({ address: r.body.address as string, asset, amount });
      }
      devnet.control.mine(1);
      const hotUsdtBefore = devnet.control.balances(HOT).tokens.USDT_TRON ?? 0n;
      miner = setInterval(() => devnet.control.mine(1), 150);

      // Kills at chosen moments of a sweep, then at a random one.
      const moments: [string, Moment | null][] = [
        ['after a top-up', afterTopUpBeforeTransfer],
        ['transfer in flight', transferInFlight],
        ['random', null],
      ];
      const hit: string[] = [];
      for (const [name, moment] of moments) {
        const before = new Set(await sweepTxs());
        const serve = await startServe();
        if (moment) {
          const found = await vi
            .waitFor(async () => expect(moment(before, await sweepTxs())).toBe(true), { timeout: 15_000, interval: 2 })
            .then(
              () => true,
              () => false,
            );
          if (found) hit.push(name);
        } else {
          await new Promise((r) => setTimeout(r, 100 + Math.random() * 1_000));
        }
        serve.child.kill('SIGKILL');
        await serve.exited;
      }
      // The kills landed where they were meant to.
      expect(hit).toEqual(['after a top-up', 'transfer in flight']);

      const last = await startServe();
      await vi.waitFor(
        async () => {
          const sweeps = await db().selectFrom('sweeps').select(['address', 'asset', 'status']).execute();
          const done = new Set(sweeps.filter((s) => s.status === 'done').map((s) => `${s.address}|${s.asset}`));
          expect(paid.filter((p) => !done.has(`${p.address}|${p.asset}`))).toEqual([]);
          expect(sweeps.filter((s) => s.status === 'open')).toEqual([]);
          const hot = await chain.getAccount(HOT);
          expect(hot.delegatedOutEnergy).toBe(0n);
        },
        { timeout: 30_000, interval: 200 },
      );
      last.child.kill('SIGTERM');
      await last.exited;
      clearInterval(miner);

      const hotHex = TronWeb.address.toHex(HOT).toLowerCase();
      for (const p of paid) {
        const sweeps = await db()
          .selectFrom('sweeps')
          .selectAll()
          .where('address', '=', p.address)
          .where('asset', '=', p.asset)
          .execute();
        expect(sweeps.map((s) => s.status)).toEqual(['done']);
        // Every transaction the address ever sent in this asset: one, to the hot wallet, successful.
        const sent = transfersFrom(devnet, p.address).filter((x) =>
          p.asset === 'TRX_TRON' ? x.token === null : x.token !== null,
        );
        expect(
          sent.map((x) => [x.to, x.ret]),
          `${p.asset} sweeps of ${p.address}`,
        ).toEqual([[hotHex, 'SUCCESS']]);
        expect(sent[0]!.amount).toBe(BigInt(sweeps[0]!.amount as string));
        const left = devnet.control.balances(p.address);
        if (p.asset === 'TRX_TRON') expect(left.trx).toBe(0n);
        else expect([left.tokens.USDT_TRON, sent[0]!.amount]).toEqual([0n, p.amount]);
      }
      const usdt = paid.filter((p) => p.asset === 'USDT_TRON').reduce((a, p) => a + p.amount, 0n);
      expect(devnet.control.balances(HOT).tokens.USDT_TRON).toBe(hotUsdtBefore + usdt);
      const hot = await chain.getAccount(HOT);
      expect(hot.frozenForEnergy).toBe(20_000n * TRX);
      await expectLedgerMatchesDeposits(db(), { settled: true });
    },
  );
});
