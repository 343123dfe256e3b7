/**
 * Payout worker tests: a devnet in this process, a real keystore (cheap scrypt), the real app with
 * its wallet unlocked and only the payout worker running, and what the chain says about payouts.
 */
import path from 'node:path';
import { TronWeb } from 'tronweb';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { decodeTransferCall } from '../../src/chain/trc20.js';
import type { Executor } from '../../src/db/database.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { verifyLedger } from '../../src/ledger/service.js';
import { createPayoutWorker, type PayoutWorkerOptions } from '../../src/payouts/worker/worker.js';
import { generateMnemonic, publicInfoOf } from '../../src/wallet/hd.js';
import { encryptMnemonic, writeKeystore } from '../../src/wallet/keystore.js';
import type { WorkerServices } from '../../src/services.js';
import type { WorkerLease } from '../../src/runtime/lease.js';
import { tempDir } from '../helpers/app.js';
import { approvedMerchantWithKey } from '../../src/keys/service.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { findMerchant, type MerchantRow } from '../../src/merchants/store.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { createPayout } from '../../src/payouts/service.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import type { SweepFixture } from '../sweeper/fixture.js';
import { newAddress } from './fixture.js';

export const PASSPHRASE = 'a test passphrase, long enough';
export const CHEAP_SCRYPT = { N: 2 ** 10, r: 8, p: 1 };

/** A keystore file for a new seed; returns its path and the hot wallet address. */
export async function newKeystore(
  dir = tempDir(),
): Promise<{ keystore: string; hotAddress: string; mnemonic: string }> {
  const mnemonic = generateMnemonic();
  const keystore = path.join(dir, 'keystore.json');
  writeKeystore(keystore, await encryptMnemonic(mnemonic, PASSPHRASE, new Date().toISOString(), CHEAP_SCRYPT));
  return { keystore, hotAddress: publicInfoOf(mnemonic).hotAddress, mnemonic };
}

/** A node client that gives up fast (hang faults) and retries little. */
export const fastClient = (url: string) =>
  createTronClient({ fullHost: url, timeoutMs: 400, retries: 2, backoffMs: 20, maxBackoffMs: 100 });

/** AppOptions for startTestApp: the wallet unlocked, only the payout worker, fast node client. */
export async function workerAppOptions(devnet: Devnet, worker: PayoutWorkerOptions = {}) {
  const ks = await newKeystore();
  return {
    hotAddress: ks.hotAddress,
    /** The seed, for a test that must move the hot wallet's funds behind the worker's back. */
    mnemonic: ks.mnemonic,
    options: {
      unlockWallet: true,
      chain: fastClient(devnet.url),
      env: { WALLET_KEYSTORE: ks.keystore, WALLET_PASSPHRASE: PASSPHRASE, TRON_FULL_NODE_URL: devnet.url },
      workerHost: {
        renewMs: 200,
        jobs: [],
        workers: (s: WorkerServices, lease: WorkerLease) => [
          createPayoutWorker(s, lease, { intervalMs: 30, ...worker }),
        ],
      },
    },
  };
}

export async function startTestDevnet(): Promise<Devnet> {
  return startDevnet({ blockTimeMs: 0, solidLag: 2 });
}

const hex = (a: string) => TronWeb.address.toHex(a).toLowerCase();

/** Every successful transfer from `from` on the chain (all blocks), as {txid, to (hex), amount, kind}. */
export function transfersFrom(
  devnet: Devnet,
  from: string,
): { txid: string; to: string; amount: bigint; token: string | null; ret: string }[] {
  const owner = hex(from);
  const out: { txid: string; to: string; amount: bigint; token: string | null; ret: string }[] = [];
  for (const b of devnet.control.chain.blocks) {
    for (const t of b.txs) {
      const c = t.tx.raw_data.contract[0];
      const v = (c?.parameter.value ?? {}) as Record<string, unknown>;
      if (String(v.owner_address ?? '').toLowerCase() !== owner) continue;
      const ret = t.tx.ret?.[0]?.contractRet ?? '';
      if (c?.type === 'TransferContract')
        out.push({
          txid: t.tx.txID,
          to: String(v.to_address).toLowerCase(),
          amount: BigInt(String(v.amount)),
          token: null,
          ret,
        });
      if (c?.type === 'TriggerSmartContract') {
        const call = decodeTransferCall(String(v.data ?? ''));
        if (call)
          out.push({
            txid: t.tx.txID,
            to: call.to,
            amount: call.amount,
            token: String(v.contract_address).toLowerCase(),
            ret,
          });
      }
    }
  }
  return out;
}

/** Successful transfers on chain to `to` from the hot wallet. */
export function successfulTransfersTo(devnet: Devnet, from: string, to: string) {
  return transfersFrom(devnet, from).filter((t) => t.to === hex(to) && t.ret === 'SUCCESS');
}

/** Ledger problems of every merchant and asset (empty = consistent), plus reservations that outlive their payout. */
export async function ledgerProblems(db: Executor): Promise<string[]> {
  const pairs = await db.selectFrom('ledger_entries').select(['merchant_id', 'asset']).distinct().execute();
  const problems: string[] = [];
  for (const p of pairs) problems.push(...(await verifyLedger(db, p.merchant_id, p.asset)));
  // Every closed payout has its reservation released; every open one still holds it.
  const payouts = await db.selectFrom('payouts').select(['id', 'status', 'amount', 'fee_amount']).execute();
  for (const p of payouts) {
    const kinds = (
      await db.selectFrom('ledger_entries').select(['kind', 'amount']).where('payout_id', '=', p.id).execute()
    )
      .map((e) => e.kind)
      .sort();
    const closed = ['confirmed', 'failed', 'rejected'].includes(p.status);
    const want =
      p.status === 'confirmed' ? ['debit', 'release', 'reserve'] : closed ? ['release', 'reserve'] : ['reserve'];
    if (kinds.join() !== want.join())
      problems.push(`payout ${p.id} (${p.status}): ledger entries ${kinds.join()}, expected ${want.join()}`);
  }
  return problems;
}

/**
 * On a sweep fixture: a funded hot wallet (1,000 TRX, 100 USDT), an approved merchant credited
 * 50 USDT, and its approved payout of 10 USDT to a whitelisted address.
 */
export async function approvedPayoutOnFixture(
  f: SweepFixture,
  shop: string,
  reference: string,
): Promise<{ merchant: MerchantRow; payoutId: string; to: string }> {
  const db = f.database.db;
  const { clock, catalog } = f.services;
  f.devnet.control.fund({ address: f.hot, asset: 'TRX_TRON', amount: 1_000_000_000n, mine: true });
  f.devnet.control.fund({ address: f.hot, asset: 'USDT_TRON', amount: 100_000_000n, mine: true });
  const { merchant: view } = await approvedMerchantWithKey(db, clock, 'test', { name: shop });
  const merchant = (await findMerchant(db, view.merchant_id))!;
  await creditMerchant(db, clock, 'test', catalog, merchant.id, { asset: 'USDT_TRON', amount: '50', memo: 'seed' });
  const to = newAddress();
  await addToWhitelist(db, clock, 'test', catalog, merchant.id, { asset: 'USDT_TRON', address: to, delay: '0' });
  const created = await createPayout({ db, clock, catalog }, merchant, {
    reference,
    asset: 'USDT_TRON',
    to_address: to,
    amount: '10',
  });
  const payoutId = created.payout.payout_id;
  if (created.payout.status === 'pending_review') await approvePayout(db, clock, 'test', payoutId);
  return { merchant, payoutId, to };
}
