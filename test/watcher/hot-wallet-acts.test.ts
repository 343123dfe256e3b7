/**
 * Every transaction the hot wallet's account owns is an act of its keys, whatever its contract
 * type: each is built by the devnet's java-tron endpoints, signed here with the hot wallet's key
 * (real secp256k1) outside paygate and broadcast, and each raises the alert (a row of kind
 * `unknown` with its contract type, the metric, the error log). After a permission update gives
 * the account to another key, a transfer that key signs raises it too. None of these acts is a
 * candidate for a payout: a payout with the asset, address and amount of one is not held.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TronTransactionJson } from '../../src/chain/tx-codec.js';
import { signTransaction } from '../../src/devnet/builder.js';
import { TRC10_ASSET } from '../../src/devnet/control.js';
import type { Devnet } from '../../src/devnet/index.js';
import type { WorkerLease } from '../../src/runtime/lease.js';
import type { Services } from '../../src/services.js';
import { hotWalletPrivateKey } from '../../src/wallet/hd.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startTestDevnet, workerAppOptions } from '../payouts/worker-fixture.js';

const METRIC = 'paygate_hot_wallet_unknown_transfers';

let devnet: Devnet;
let t: TestApp;
let hot: string;
let hotKey: string;
let logs = '';
const thiefKey = randomBytes(32).toString('hex');
const thief = TronWeb.address.fromPrivateKey(thiefKey) as string;
const hex = (a: string) => TronWeb.address.toHex(a).toLowerCase();

beforeAll(async () => {
  devnet = await startTestDevnet();
  const w = await workerAppOptions(devnet);
  hot = w.hotAddress;
  hotKey = hotWalletPrivateKey(w.mnemonic);
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs += chunk.toString();
      done();
    },
  });
  t = await startTestApp({
    ...w.options,
    logger: pino({ level: 'info' }, sink),
    workerHost: {
      ...w.options.workerHost,
      workers: (s: Services, lease: WorkerLease) => [chainWatcher(s, lease, { intervalMs: 30 })],
    },
  });
  devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 5_000_000_000n, mine: true });
  devnet.control.fund({ address: hot, asset: TRC10_ASSET, amount: 1_000n, mine: true });
  // The thief's account exists (a delegation needs a receiver account).
  devnet.control.fund({ address: thief, asset: 'TRX_TRON', amount: 1_000_000n, mine: true });
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

const unknownMetric = async () => {
  const text = await (await fetch(`${t.app.adminUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${METRIC} `));
  return line === undefined ? undefined : Number(line.slice(METRIC.length + 1));
};

/** A node endpoint of the devnet, as java-tron answers it. */
async function node(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await fetch(`${devnet.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await r.json()) as Record<string, unknown>;
}

/** Builds with the node's endpoint, signs with `key` outside paygate, broadcasts; the txid. */
async function act(path: string, body: Record<string, unknown>, key = hotKey): Promise<string> {
  const built = await node(path, { owner_address: hex(hot), ...body });
  const tx = (built.transaction ?? built) as TronTransactionJson;
  expect(tx.txID, JSON.stringify(built)).toMatch(/^[0-9a-f]{64}$/);
  const sent = await node('/wallet/broadcasttransaction', signTransaction(tx, key) as never);
  expect(sent, JSON.stringify(sent)).toMatchObject({ result: true });
  devnet.control.mine(1);
  return tx.txID;
}

const recorded = (txid: string) =>
  t.app.services.db.selectFrom('hot_wallet_transfers').selectAll().where('tx_hash', '=', txid).execute();

/** The act is recorded as unknown with its type, the metric counts it, and an error is logged. */
async function alerted(txid: string, contractType: string, count: number) {
  await vi.waitFor(async () => expect(await recorded(txid)).toMatchObject([{ kind: 'unknown' }]), {
    timeout: 15_000,
  });
  const rows = await recorded(txid);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ contract_type: contractType, payout_id: null });
  await vi.waitFor(async () => expect(await unknownMetric()).toBe(count), { timeout: 10_000 });
  const line = logs
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.tx_hash === txid);
  expect(line).toMatchObject({ level: 50, msg: expect.stringMatching(/did not sign/) });
  return rows[0]!;
}

describe('every act of the hot key', () => {
  it('a contract call with a TRX value raises the alert (TriggerSmartContract with call_value)', async () => {
    const usdt = t.app.services.catalog.get('USDT_TRON')!;
    const txid = await act('/wallet/triggersmartcontract', {
      contract_address: hex(usdt.contract!),
      function_selector: 'balanceOf(address)',
      parameter: hex(hot).slice(2).padStart(64, '0'),
      call_value: 3_000_000,
      fee_limit: 100_000_000,
    });
    const row = await alerted(txid, 'TriggerSmartContract', 1);
    expect(row).toMatchObject({ asset: '', to_address: usdt.contract, amount: '3000000' });
  });

  it('a TRC-10 transfer raises the alert (TransferAssetContract)', async () => {
    const txid = await act('/wallet/transferasset', {
      to_address: hex(thief),
      asset_name: Buffer.from('1000001').toString('hex'),
      amount: 7,
    });
    const row = await alerted(txid, 'TransferAssetContract', 2);
    expect(row).toMatchObject({ asset: 'trc10:1000001', to_address: thief, amount: '7' });
  });

  it('a freeze raises the alert (FreezeBalanceV2Contract)', async () => {
    const txid = await act('/wallet/freezebalancev2', { frozen_balance: 100_000_000, resource: 'ENERGY' });
    await alerted(txid, 'FreezeBalanceV2Contract', 3);
  });

  it('a delegation raises the alert (DelegateResourceContract)', async () => {
    const txid = await act('/wallet/delegateresource', {
      receiver_address: hex(thief),
      balance: 10_000_000,
      resource: 'ENERGY',
    });
    const row = await alerted(txid, 'DelegateResourceContract', 4);
    expect(row).toMatchObject({ to_address: thief, amount: '10000000' });
  });

  it('a vote raises the alert (VoteWitnessContract)', async () => {
    const witness = devnet.control.chain.witnesses[0]!;
    const txid = await act('/wallet/votewitnessaccount', { votes: [{ vote_address: witness.hex, vote_count: 5 }] });
    await alerted(txid, 'VoteWitnessContract', 5);
  });

  it('a permission change raises the alert, and a transfer the new key signs does too (AccountPermissionUpdateContract)', async () => {
    const keys = [{ address: hex(thief), weight: 1 }];
    const txid = await act('/wallet/accountpermissionupdate', {
      owner: { type: 0, permission_name: 'owner', threshold: 1, keys },
      actives: [
        {
          type: 2,
          permission_name: 'active',
          threshold: 1,
          operations: '7fff1fc0033e0000000000000000000000000000000000000000000000000000',
          keys,
        },
      ],
    });
    await alerted(txid, 'AccountPermissionUpdateContract', 6);
    // The hot wallet's own key no longer signs for it; the thief's does.
    const refused = await node('/wallet/createtransaction', {
      owner_address: hex(hot),
      to_address: hex(thief),
      amount: 1_000_000,
    });
    const byOwnKey = await node('/wallet/broadcasttransaction', signTransaction(refused as never, hotKey) as never);
    expect(byOwnKey).toMatchObject({ code: 'SIGERROR' });
    const stolen = await act('/wallet/createtransaction', { to_address: hex(thief), amount: 2_000_000 }, thiefKey);
    const row = await alerted(stolen, 'TransferContract', 7);
    expect(row).toMatchObject({ asset: 'TRX_TRON', to_address: thief, amount: '2000000', log_index: -1 });
  });
});
