/**
 * Payout worker throughput against the devnet: N approved payouts (USDT and TRX, a mix of
 * receivers) from `approved` to `broadcast` and to `confirmed` (receipt in a solid block), through
 * the real app (SQLite file, wallet keystore, worker host) and the real node client over HTTP.
 * Blocks every 100 ms with the solid block 19 behind (~2 s), so confirmation time is mostly ours.
 * Run: npx tsx bench/payouts.ts [payouts=200]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TronWeb } from 'tronweb';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { startDevnet } from '../src/devnet/index.js';
import { approvedMerchantWithKey } from '../src/keys/service.js';
import { creditMerchant } from '../src/ledger/operator.js';
import { findMerchant } from '../src/merchants/store.js';
import { approvePayout } from '../src/payouts/operator.js';
import { createPayout } from '../src/payouts/service.js';
import { createPayoutWorker } from '../src/payouts/worker/worker.js';
import { generateMnemonic, publicInfoOf } from '../src/wallet/hd.js';
import { encryptMnemonic, writeKeystore } from '../src/wallet/keystore.js';
import { addToWhitelist } from '../src/whitelist/service.js';

const N = Number(process.argv[2] ?? 200);
const PASS = randomBytes(18).toString('base64url');

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-bench-payouts-'));
  const devnet = await startDevnet({ blockTimeMs: 100, solidLag: 19 });
  try {
    const mnemonic = generateMnemonic();
    const keystore = path.join(dir, 'keystore.json');
    writeKeystore(
      keystore,
      await encryptMnemonic(mnemonic, PASS, new Date().toISOString(), { N: 2 ** 10, r: 8, p: 1 }),
    );
    const hot = publicInfoOf(mnemonic).hotAddress;
    devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 10_000_000_000_000n });
    devnet.control.fund({ address: hot, asset: 'USDT_TRON', amount: 10_000_000_000_000n, mine: true });
    const config = parseConfig({
      ADMIN_PORT: '0',
      CABINET_PORT: '0',
      PAY_PORT: '0',
      DATABASE_URL: path.join(dir, 'bench.db'),
      PORT: '0',
      LOG_LEVEL: 'silent',
      TRON_NETWORK: 'devnet',
      TRON_FULL_NODE_URL: devnet.url,
      WALLET_KEYSTORE: keystore,
      WALLET_PASSPHRASE: PASS,
    });
    const app = await buildApp(config, {
      unlockWallet: true,
      workerHost: { jobs: [], workers: (s, lease) => [createPayoutWorker(s, lease, { intervalMs: 50 })] },
    });
    const { db, catalog } = app.services;
    const { merchant: m } = await approvedMerchantWithKey(db, systemClock, 'bench', { name: 'Bench' });
    const merchant = (await findMerchant(db, m.merchant_id))!;
    await creditMerchant(db, systemClock, 'bench', catalog, merchant.id, {
      asset: 'USDT_TRON',
      amount: '100000000',
      memo: 'bench',
    });
    await creditMerchant(db, systemClock, 'bench', catalog, merchant.id, {
      asset: 'TRX_TRON',
      amount: '100000000',
      memo: 'bench',
    });
    const receivers = Array.from(
      { length: 20 },
      () => TronWeb.address.fromPrivateKey(randomBytes(32).toString('hex')) as string,
    );
    for (const address of receivers) {
      for (const asset of ['USDT_TRON', 'TRX_TRON'])
        await addToWhitelist(db, systemClock, 'bench', catalog, merchant.id, { asset, address, delay: '0' });
    }
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      const body = {
        reference: `b-${i}`,
        asset: i % 4 === 3 ? 'TRX_TRON' : 'USDT_TRON',
        to_address: receivers[i % receivers.length] as string,
        amount: '1.5',
      };
      const r = await createPayout({ db, clock: systemClock, catalog }, merchant, body);
      if (r.payout.status === 'pending_review') await approvePayout(db, systemClock, 'bench', r.payout.payout_id);
      ids.push(r.payout.payout_id);
    }
    const count = async (statuses: string[]) =>
      Number(
        (
          await db
            .selectFrom('payouts')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('status', 'in', statuses as never[])
            .executeTakeFirstOrThrow()
        ).n,
      );

    const t0 = Date.now();
    await app.start();
    for (;;) {
      if ((await count(['confirmed', 'failed'])) === N) break;
      if (Date.now() - t0 > 600_000) throw new Error('not done after 10 minutes');
      await new Promise((r) => setTimeout(r, 50));
    }
    // When the last payout reached each state, from the events written with the change.
    const lastEvent = async (type: string) =>
      Date.parse(
        (
          await db
            .selectFrom('events')
            .select((eb) => eb.fn.max('created_at').as('at'))
            .where('type', '=', type)
            .executeTakeFirstOrThrow()
        ).at as string,
      );
    const broadcastAt = await lastEvent('payout.broadcast');
    const confirmedAt = await lastEvent('payout.confirmed');
    const failed = await count(['failed']);
    await app.stop();
    const s = (ms: number) => ms / 1000;
    console.log(`${N} payouts (3/4 USDT, 1/4 TRX), ${failed} failed`);
    console.log(
      `approved → broadcast: ${s(broadcastAt - t0).toFixed(1)} s = ${(N / s(broadcastAt - t0)).toFixed(1)} payouts/s`,
    );
    console.log(
      `approved → confirmed: ${s(confirmedAt - t0).toFixed(1)} s = ${(N / s(confirmedAt - t0)).toFixed(1)} payouts/s (solid block ~1.9 s behind the head)`,
    );
  } finally {
    await devnet.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
