/**
 * A sweeper over a real SQLite file and a devnet (manual blocks, real signatures). Deposits are
 * made on chain with the devnet's customer payments and recorded in `deposits` the way the chain
 * watcher records them (final, confirmed), since the sweeper works from what the watcher records.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadCatalog } from '../../src/assets/catalog.js';
import type { TronClient } from '../../src/chain/client.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { systemClock, type Clock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase, writeTx, type Database, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { createLogger } from '../../src/logger.js';
import { createMerchant } from '../../src/merchants/service.js';
import type { WorkerServices } from '../../src/services.js';
import { Sweeper, type SweeperOptions } from '../../src/sweeper/engine.js';
import { DepositKeyChain, depositPrivateKey, hotWalletPrivateKey, publicInfoOf } from '../../src/wallet/hd.js';
import type { UnlockedWallet } from '../../src/wallet/keystore.js';
import { createSigner, type Signer } from '../../src/wallet/signer.js';
import { insertWallet } from '../../src/wallet/store.js';
import { WorkerLease } from '../../src/runtime/lease.js';
import { underLease } from '../../src/runtime/host.js';
import { tempDir } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { expect } from 'vitest';

export const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
export const TRX = 1_000_000n;
export const USDT = 1_000_000n;

export interface SweepFixture {
  devnet: Devnet;
  database: Database;
  /** The services the signing workers get: with the wallet's signer. */
  services: WorkerServices & { signer: Signer };
  lease: WorkerLease;
  wallet: UnlockedWallet;
  hot: string;
  merchantId: string;
  /** Every log line written so far. */
  logs(): string;
  /** The secrets that must never appear anywhere: mnemonic, hot key, the deposit keys used. */
  secrets(): string[];
  sweeper(opts?: SweeperOptions & { chain?: TronClient }): Sweeper;
  /** A deposit address at `index` (stored with `storedIndex`, to model a tampered row). */
  address(index: number, storedIndex?: number): Promise<string>;
  /** A customer payment on chain plus the deposits row the watcher would write once final. */
  deposit(address: string, asset: string, amount: bigint): Promise<string>;
  /** Ticks the sweeper and mines a block until no sweep is open (or `rounds` pass). */
  run(sweeper?: Sweeper, rounds?: number): Promise<void>;
  stakeHotForEnergy(amount: bigint): Promise<void>;
  close(): Promise<void>;
}

export async function sweepFixture(opts: { clock?: Clock } = {}): Promise<SweepFixture> {
  const dir = tempDir('paygate-sweep-');
  const devnet = await startDevnet({ blockTimeMs: 0 });
  const config = parseConfig({
    ADMIN_PORT: '0',
    CABINET_PORT: '0',
    PAY_PORT: '0',
    DATABASE_URL: (await testDatabaseUrl(path.join(dir, 'paygate.db'))).url,
    TRON_NETWORK: 'devnet',
    TRON_FULL_NODE_URL: devnet.url,
    LOG_LEVEL: 'debug',
  });
  const database = openDatabase(config.database);
  await migrateToLatest(database.db);
  let logText = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logText += String(chunk);
      cb();
    },
  });
  const logger = createLogger('debug', sink);
  const wallet: UnlockedWallet = { mnemonic: MNEMONIC, ...publicInfoOf(MNEMONIC) };
  const clock = opts.clock ?? systemClock;
  await writeTx(database.db, (trx) =>
    insertWallet(trx, {
      deposit_xpub: wallet.depositXpub,
      deposit_path: "m/44'/195'/0'/0",
      hot_address: wallet.hotAddress,
      hot_path: "m/44'/195'/1'/0/0",
      created_at: clock.now().toISOString(),
    }),
  );
  const merchant = await createMerchant(database.db, clock, 'test', { name: 'Sweep shop' });
  const chain = createTronClient({ fullHost: devnet.url });
  const services = {
    config,
    clock,
    logger,
    db: database.db,
    catalog: loadCatalog('devnet'),
    chain,
    signer: createSigner(wallet),
  } as unknown as WorkerServices & { signer: Signer };
  const lease = new WorkerLease(database.db, clock, { ttlMs: 3_600_000, holder: 'sweeper-test' });
  await lease.acquireOrRenew();
  const keyChain = new DepositKeyChain(wallet.depositXpub);
  const usedIndexes = new Set<number>();
  const hot = wallet.hotAddress;

  const fixture: SweepFixture = {
    devnet,
    database,
    services,
    lease,
    wallet,
    hot,
    merchantId: merchant.merchant_id,
    logs: () => logText,
    secrets: () => [
      MNEMONIC,
      hotWalletPrivateKey(MNEMONIC),
      ...[...usedIndexes].map((i) => depositPrivateKey(MNEMONIC, i)),
    ],
    sweeper: (opts = {}) =>
      new Sweeper(
        underLease(opts.chain ? { ...services, chain: opts.chain } : services, lease),
        services.signer,
        lease,
        opts,
      ),
    async address(index, storedIndex = index) {
      usedIndexes.add(index);
      const address = keyChain.addressAt(index)!;
      await database.db
        .insertInto('deposit_addresses')
        .values({
          address,
          derivation_index: storedIndex,
          merchant_id: merchant.merchant_id,
          external_user_id: null,
          created_at: clock.now().toISOString(),
        })
        .execute();
      return address;
    },
    async deposit(address, asset, amount) {
      return recordDeposit(database.db, devnet, merchant.merchant_id, address, asset, amount);
    },
    async run(sweeper = fixture.sweeper(), rounds = 60) {
      for (let i = 0; i < rounds; i++) {
        await sweeper.tick();
        const open = await database.db.selectFrom('sweeps').select('id').where('status', '=', 'open').execute();
        if (open.length === 0 && i > 0) return;
        devnet.control.mine(1);
      }
    },
    async stakeHotForEnergy(amount) {
      const tx = await chain.buildFreezeBalanceV2({ owner: hot, amount, resource: 'ENERGY' });
      const signed = await chain.sign(tx, hotWalletPrivateKey(MNEMONIC));
      const r = await chain.broadcast(signed);
      if (!r.ok) throw new Error(`freeze refused: ${r.code}`);
      devnet.control.mine(1);
    },
    async close() {
      await database.close();
      await devnet.close();
    },
  };
  return fixture;
}

/** Token and TRX balances of an address on the devnet (base units). */
export function balances(f: SweepFixture, address: string) {
  return f.devnet.control.balances(address);
}

/** A customer payment on chain (mined) and the deposits row the watcher writes once it is final. */
export async function recordDeposit(
  db: Db,
  devnet: Devnet,
  merchantId: string,
  address: string,
  asset: string,
  amount: bigint,
): Promise<string> {
  const { txid } = devnet.control.pay({ to: address, asset, amount, mine: true });
  const head = devnet.control.info().head;
  await insertFinalDeposit(db, merchantId, {
    address,
    asset,
    amount,
    txid,
    block: head.number,
    blockHash: head.id,
    blockTime: new Date(head.timestamp).toISOString(),
  });
  return txid;
}

export interface FinalDeposit {
  address: string;
  asset: string;
  amount: bigint;
  block: number;
  txid?: string;
  blockHash?: string;
  blockTime?: string;
  /** When the watcher last wrote the row (default now): an old one is the full scan's to find. */
  updatedAt?: string;
}

/** The deposits row the watcher writes once a deposit is final and confirmed. */
export async function insertFinalDeposit(db: Db, merchantId: string, d: FinalDeposit): Promise<void> {
  const at = new Date().toISOString();
  await db
    .insertInto('deposits')
    .values({
      id: `dep_${randomUUID()}`,
      merchant_id: merchantId,
      address: d.address,
      asset: d.asset,
      decimals: loadCatalog('devnet').get(d.asset)?.decimals ?? 6,
      amount: d.amount.toString(),
      tx_hash: d.txid ?? randomUUID().replaceAll('-', '').repeat(2),
      log_index: d.asset === 'TRX_TRON' ? -1 : 0,
      from_address: null,
      block_number: d.block,
      block_hash: d.blockHash ?? '0'.repeat(64),
      block_time: d.blockTime ?? at,
      invoice_id: null,
      external_user_id: null,
      late: 0,
      status: 'confirmed',
      confirmations: 20,
      final: 1,
      credited_at: at,
      created_at: at,
      updated_at: d.updatedAt ?? at,
    })
    .execute();
}

/** After each test: nothing secret in any log line or any stored row, whatever the test did. */
export async function closeWithoutSecrets(f: SweepFixture): Promise<void> {
  const logs = f.logs();
  expect(logs).toContain('"component":"sweeper"');
  const rows = JSON.stringify([
    await f.database.db.selectFrom('sweeps').selectAll().execute(),
    await f.database.db.selectFrom('sweep_txs').selectAll().execute(),
  ]);
  for (const secret of f.secrets()) {
    expect(logs).not.toContain(secret);
    expect(rows).not.toContain(secret);
  }
  await f.close();
}

/** The sweeps of `address`, oldest first. */
export const sweepsOf = (f: SweepFixture, address: string) =>
  f.database.db.selectFrom('sweeps').selectAll().where('address', '=', address).orderBy('created_at').execute();

/** The transactions of sweep `sweepId`, in order. */
export const txsOf = (f: SweepFixture, sweepId: string) =>
  f.database.db.selectFrom('sweep_txs').selectAll().where('sweep_id', '=', sweepId).orderBy('seq').execute();
