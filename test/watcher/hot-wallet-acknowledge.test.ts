/**
 * The operator's answer to a transfer out of the hot wallet that paygate did not sign. A transfer
 * made with the hot key outside paygate (signed here with that key, broadcast to the devnet) raises
 * `paygate_hot_wallet_unknown_transfers`; `wallet transfers` lists it as unknown; every refusal
 * (a txid with no transfer, no reason, a read-only token, a payout's transaction, while the chain
 * since a restore is read, twice) changes nothing; `wallet transfer acknowledge` (CLI and console)
 * clears the metric and the /readyz detail and is audited.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { writeTx } from '../../src/db/database.js';
import type { Devnet } from '../../src/devnet/index.js';
import { approvedMerchantWithKey } from '../../src/keys/service.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { findMerchant } from '../../src/merchants/store.js';
import { beginReading, readingPending } from '../../src/restore/chain-reading.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { createPayout } from '../../src/payouts/service.js';
import { createPayoutWorker } from '../../src/payouts/worker/worker.js';
import type { WorkerLease } from '../../src/runtime/lease.js';
import type { WorkerServices } from '../../src/services.js';
import { hotWalletPrivateKey } from '../../src/wallet/hd.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { runCli } from '../helpers/cli.js';
import { cliEnvOf, startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { newAddress } from '../payouts/fixture.js';
import { startTestDevnet, workerAppOptions } from '../payouts/worker-fixture.js';

const METRIC = 'paygate_hot_wallet_unknown_transfers';

let devnet: Devnet;
let t: ConsoleTestApp;
let hot: string;
let mnemonic: string;

beforeAll(async () => {
  devnet = await startTestDevnet();
  const w = await workerAppOptions(devnet);
  hot = w.hotAddress;
  mnemonic = w.mnemonic;
  t = await startConsoleApp({
    ...w.options,
    admin: { probe: { timeoutMs: 500, headTtlMs: 0, balanceTtlMs: 0 } },
    workerHost: {
      ...w.options.workerHost,
      workers: (s: WorkerServices, lease: WorkerLease) => [
        chainWatcher(s, lease, { intervalMs: 30 }),
        createPayoutWorker(s, lease, { intervalMs: 30 }),
      ],
    },
  });
  devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 5_000_000_000n, mine: true });
  devnet.control.fund({ address: hot, asset: 'USDT_TRON', amount: 100_000_000n, mine: true });
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

const unknownMetric = async () => {
  const text = await (await fetch(`${t.admin}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${METRIC} `));
  return line === undefined ? undefined : Number(line.slice(METRIC.length + 1));
};

const hotWalletCheck = async () =>
  ((await (await fetch(`${t.admin}/readyz`)).json()) as { checks: Record<string, unknown> }).checks.hot_wallet;

const cli = (args: string[]) => runCli(['wallet', ...args, '--json'], cliEnvOf(t));

/** A transfer out of the hot wallet signed with its key outside paygate, broadcast to the devnet. */
async function sendOutside(asset: 'TRX_TRON' | 'USDT_TRON', to: string, amount: bigint): Promise<string> {
  const chain = createTronClient({ fullHost: devnet.url });
  try {
    const usdt = t.app.services.catalog.get('USDT_TRON')!;
    const tx =
      asset === 'TRX_TRON'
        ? await chain.buildTrxTransfer({ from: hot, to, amount })
        : await chain.buildTrc20Transfer({ contract: usdt.contract!, from: hot, to, amount, feeLimit: 100_000_000n });
    const sent = await chain.broadcast(await chain.sign(tx, hotWalletPrivateKey(mnemonic)));
    expect(sent.ok).toBe(true);
    return sent.txid;
  } finally {
    await chain.close?.();
  }
}

/** What a refusal must leave as it was: the transfers, the acknowledgements and the audit log. */
const snapshot = async () => {
  const db = t.app.services.db;
  return {
    transfers: await db.selectFrom('hot_wallet_transfers').select(['tx_hash', 'kind']).orderBy('tx_hash').execute(),
    acknowledgements: await db.selectFrom('hot_wallet_acknowledgements').selectAll().execute(),
    audit: (await db.selectFrom('audit_log').select('id').execute()).length,
  };
};

describe('acknowledging a transfer out of the hot wallet', () => {
  it('an unknown transfer raises the alert; refusals change nothing; the CLI acknowledgement clears it', async () => {
    await vi.waitFor(async () => expect(await unknownMetric()).toBe(0), { timeout: 10_000 });
    const cold = newAddress();
    const txid = await sendOutside('USDT_TRON', cold, 20_000_000n);
    devnet.control.mine(1);
    await vi.waitFor(async () => expect(await unknownMetric()).toBe(1), { timeout: 10_000 });
    expect(await hotWalletCheck()).toMatchObject({ unknown_transfers: 1, latest: [{ tx_hash: txid }] });

    const listed = await cli(['transfers', '--unknown']);
    expect(listed.code, listed.stdout).toBe(0);
    expect(listed.json).toMatchObject({ next_cursor: null });
    expect(listed.json.data).toEqual([
      expect.objectContaining({ tx_hash: txid, kind: 'unknown', asset: 'USDT_TRON', amount: '20', to_address: cold }),
    ]);
    const page = await t.call('/admin/v1/wallet/transfers?unknown=true');
    expect(page.status, page.text).toBe(200);
    expect(page.body).toMatchObject({ data: [{ tx_hash: txid, kind: 'unknown' }], next_cursor: null });

    const before = await snapshot();
    const nobody = await cli(['transfer', 'acknowledge', randomBytes(32).toString('hex'), '--reason', 'mine']);
    expect(nobody.code).toBe(1);
    expect(nobody.json.error.code).toBe('hot_wallet_transfer_not_found');
    const blank = await cli(['transfer', 'acknowledge', txid, '--reason', '  ']);
    expect(blank.json.error.code).toBe('invalid_argument');
    const { token: reader } = await t.issueToken('reader', { readOnly: true });
    const readOnly = await t.call(`/admin/v1/wallet/transfers/${txid}/acknowledge`, {
      token: reader,
      body: { reason: 'mine' },
    });
    expect(readOnly.status, readOnly.text).toBe(403);
    const noReason = await t.call(`/admin/v1/wallet/transfers/${txid}/acknowledge`, { body: {} });
    expect(noReason.status, noReason.text).toBe(400);
    expect(noReason.body.error.code).toBe('validation_failed');
    // The issued read-only token is the one row the audit log gained.
    const after = await snapshot();
    expect({ ...after, audit: after.audit - 1 }).toEqual(before);

    // While the chain since a restore is read, the transfer may be a held payout's: refused.
    await writeTx(t.app.services.db, (trx) => beginReading(trx, t.clock, 'test', null));
    const reading = await t.call(`/admin/v1/wallet/transfers/${txid}/acknowledge`, { body: { reason: 'mine' } });
    expect(reading.status, reading.text).toBe(409);
    expect(reading.body.error).toMatchObject({ code: 'invalid_state', message: expect.stringMatching(/being read/) });
    expect(await unknownMetric()).toBe(1);
    await vi.waitFor(
      async () => {
        devnet.control.mine(5);
        expect(await readingPending(t.app.services.db)).toBe(false);
      },
      { timeout: 20_000, interval: 100 },
    );
    const restored = await t.call('/admin/v1/payouts/unknown-on-chain');
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({
      reading: 'done',
      payouts: [],
      unknown_transfers: [{ tx_hash: txid, asset: 'USDT_TRON', amount: '20', to_address: cold }],
    });

    const ack = await cli(['transfer', 'acknowledge', txid, '--reason', 'moved to cold storage, ticket OPS-1']);
    expect(ack.code, ack.stdout).toBe(0);
    expect(ack.json).toMatchObject({
      tx_hash: txid,
      acknowledged_by: expect.stringMatching(/^cli:/),
      reason: 'moved to cold storage, ticket OPS-1',
      transfers: [{ kind: 'acknowledged', asset: 'USDT_TRON', amount: '20' }],
      note: expect.stringMatching(/never matched to a payout held since a restore/),
    });
    expect(await unknownMetric()).toBe(0);
    expect(await hotWalletCheck()).toEqual({ ok: true, unknown_transfers: 0 });
    expect((await cli(['transfers', '--unknown'])).json).toEqual({ data: [], next_cursor: null });
    expect((await t.call('/admin/v1/payouts/unknown-on-chain')).body.unknown_transfers).toEqual([]);
    const audit = await t.app.services.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'hot_wallet.transfer_acknowledged')
      .execute();
    expect(audit).toMatchObject([{ subject_id: txid, actor: ack.json.acknowledged_by }]);
    expect(JSON.parse(audit[0]!.details)).toMatchObject({ reason: 'moved to cold storage, ticket OPS-1' });

    const again = await t.call(`/admin/v1/wallet/transfers/${txid}/acknowledge`, { body: { reason: 'mine' } });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error.message).toMatch(/was acknowledged by cli:/);
  });

  it('a payout’s transfer is listed with its payout id and cannot be acknowledged', async () => {
    const { db, clock, catalog } = t.app.services;
    const { merchant: view } = await approvedMerchantWithKey(db, clock, 'test', { name: 'Shop' });
    const merchant = (await findMerchant(db, view.merchant_id))!;
    await creditMerchant(db, clock, 'test', catalog, merchant.id, { asset: 'USDT_TRON', amount: '50', memo: 'seed' });
    const to = newAddress();
    await addToWhitelist(db, clock, 'test', catalog, merchant.id, { asset: 'USDT_TRON', address: to, delay: '0' });
    const created = await createPayout({ db, clock, catalog }, merchant, {
      reference: 'ack-1',
      asset: 'USDT_TRON',
      to_address: to,
      amount: '10',
    });
    const payoutId = created.payout.payout_id;
    if (created.payout.status === 'pending_review') await approvePayout(db, clock, 'test', payoutId);
    let sent: { tx_hash: string } | undefined;
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        sent = await db
          .selectFrom('hot_wallet_transfers')
          .select('tx_hash')
          .where('payout_id', '=', payoutId)
          .executeTakeFirst();
        expect(sent).toBeDefined();
      },
      { timeout: 20_000, interval: 100 },
    );
    const page = await t.call('/admin/v1/wallet/transfers');
    expect(page.body.data).toContainEqual(
      expect.objectContaining({ tx_hash: sent!.tx_hash, kind: 'payout', payout_id: payoutId, amount: '10' }),
    );
    const before = await snapshot();
    const refused = await t.call(`/admin/v1/wallet/transfers/${sent!.tx_hash}/acknowledge`, {
      body: { reason: 'mine' },
    });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_state',
      message: expect.stringContaining(`payout ${payoutId}`),
    });
    expect(await snapshot()).toEqual(before);
    expect(await unknownMetric()).toBe(0);
  });

  it('the console acknowledges a TRX transfer with the token as the actor; pages follow the cursor', async () => {
    const txid = await sendOutside('TRX_TRON', newAddress(), 3_000_000n);
    devnet.control.mine(1);
    await vi.waitFor(async () => expect(await unknownMetric()).toBe(1), { timeout: 10_000 });
    const ack = await t.call(`/admin/v1/wallet/transfers/${txid}/acknowledge`, {
      body: { reason: 'paid the node operator' },
    });
    expect(ack.status, ack.text).toBe(200);
    expect(ack.body).toMatchObject({
      acknowledged_by: t.tokenId,
      transfers: [{ tx_hash: txid, log_index: -1, asset: 'TRX_TRON', amount: '3', kind: 'acknowledged' }],
    });
    expect(await unknownMetric()).toBe(0);

    const all = (await t.call('/admin/v1/wallet/transfers?limit=100')).body.data as { tx_hash: string }[];
    expect(all.length).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await t.call(`/admin/v1/wallet/transfers?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status, r.text).toBe(200);
      seen.push(...(r.body.data as { tx_hash: string }[]).map((x) => x.tx_hash));
      cursor = r.body.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(all.map((x) => x.tx_hash));
  });
});
