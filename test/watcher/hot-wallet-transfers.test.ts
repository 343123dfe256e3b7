/**
 * The watcher records every transfer out of the hot wallet and matches it by txid to what paygate
 * signed. A transfer made with the hot wallet's key outside paygate (signed here with that key and
 * broadcast to the devnet) is an alert: an error in the log, `paygate_hot_wallet_unknown_transfers`
 * on /metrics, a /readyz detail (still ready) and `paygate watcher status`. A recorded transfer in
 * a block a fork replaces goes with it. The shipped alert rule names the metric.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import type { Devnet } from '../../src/devnet/index.js';
import type { WorkerLease } from '../../src/runtime/lease.js';
import type { Services } from '../../src/services.js';
import { hotWalletPrivateKey } from '../../src/wallet/hd.js';
import { chainWatcher } from '../../src/watcher/watcher.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { newAddress } from '../payouts/fixture.js';
import { startTestDevnet, workerAppOptions } from '../payouts/worker-fixture.js';

const RULES = path.resolve(import.meta.dirname, '../../deploy/prometheus/paygate-alerts.yml');
const METRIC = 'paygate_hot_wallet_unknown_transfers';

let devnet: Devnet;
let t: TestApp;
let hot: string;
let mnemonic: string;
let logs = '';

beforeAll(async () => {
  devnet = await startTestDevnet();
  const w = await workerAppOptions(devnet);
  hot = w.hotAddress;
  mnemonic = w.mnemonic;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs += chunk.toString();
      done();
    },
  });
  t = await startTestApp({
    ...w.options,
    logger: pino({ level: 'info' }, sink),
    admin: { probe: { timeoutMs: 500, headTtlMs: 0, balanceTtlMs: 0 } },
    workerHost: {
      ...w.options.workerHost,
      workers: (s: Services, lease: WorkerLease) => [chainWatcher(s, lease, { intervalMs: 30 })],
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
  const text = await (await fetch(`${t.app.adminUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${METRIC} `));
  return line === undefined ? undefined : Number(line.slice(METRIC.length + 1));
};

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

const recorded = (txid: string) =>
  t.app.services.db.selectFrom('hot_wallet_transfers').selectAll().where('tx_hash', '=', txid).execute();

describe('transfers out of the hot wallet', () => {
  it('none yet: the metric is 0 and /readyz shows no alert', async () => {
    await vi.waitFor(async () => expect(await unknownMetric()).toBe(0), { timeout: 10_000 });
    const r = await fetch(`${t.app.adminUrl}/readyz`);
    expect(((await r.json()) as { checks: Record<string, unknown> }).checks.hot_wallet).toEqual({
      ok: true,
      unknown_transfers: 0,
    });
  });

  it('a transfer in a block a fork replaces goes with the block', async () => {
    const txid = await sendOutside('TRX_TRON', newAddress(), 2_000_000n);
    devnet.control.mine(1);
    await vi.waitFor(async () => expect(await recorded(txid)).toMatchObject([{ kind: 'unknown' }]), {
      timeout: 10_000,
    });
    // The block is above the solid height (lag 2): a fork that drops its transactions replaces it.
    devnet.control.fork(1, 'drop');
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        expect(await recorded(txid)).toEqual([]);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(await unknownMetric()).toBe(0);
  });

  it('a token transfer signed with the hot key outside paygate raises the alert', async () => {
    logs = '';
    const thief = newAddress();
    const txid = await sendOutside('USDT_TRON', thief, 50_000_000n);
    devnet.control.mine(1);
    await vi.waitFor(async () => expect(await unknownMetric()).toBe(1), { timeout: 10_000 });
    expect(await recorded(txid)).toMatchObject([
      { kind: 'unknown', asset: 'USDT_TRON', to_address: thief, amount: '50000000', payout_id: null },
    ]);
    const r = await fetch(`${t.app.adminUrl}/readyz`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { checks: Record<string, unknown> };
    expect(body.checks.hot_wallet).toMatchObject({
      ok: true,
      unknown_transfers: 1,
      alert: expect.stringMatching(/did not sign/),
      latest: [{ tx_hash: txid, asset: 'USDT_TRON', to_address: thief, amount_units: '50000000' }],
    });
    const line = logs
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.tx_hash === txid);
    expect(line).toMatchObject({ level: 50, msg: expect.stringMatching(/did not sign/) });
    const status = await runCli(['watcher', 'status', '--json'], {
      DATABASE_URL: t.app.config.databaseUrl,
      TRON_NETWORK: 'devnet',
    });
    expect(status.json).toMatchObject({ unknown_hot_wallet_transfers: 1 });
    expect(readFileSync(RULES, 'utf8')).toContain(METRIC);
  });
});
