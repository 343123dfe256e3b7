/**
 * The operator's side of the payout worker through the real CLI: `payout cancel` and `wallet
 * limit`; and the wallet passphrase leaving the environment once the keystore is unlocked.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { systemClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { approvedMerchantWithKey } from '../../src/keys/service.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { balance } from '../../src/ledger/service.js';
import { findMerchant } from '../../src/merchants/store.js';
import { createPayout } from '../../src/payouts/service.js';
import { unlockWallet } from '../../src/wallet/service.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { tempDir } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { openTestDatabase } from '../helpers/database.js';
import { newAddress } from './fixture.js';
import { newKeystore, PASSPHRASE } from './worker-fixture.js';

const dir = tempDir();
let env: { DATABASE_URL: string; TRON_NETWORK: string };
let database: Database & { url: string };
const catalog = loadCatalog('devnet');

beforeAll(async () => {
  database = await openTestDatabase(path.join(dir, 'paygate.db'));
  env = { DATABASE_URL: database.url, TRON_NETWORK: 'devnet' };
  await migrateToLatest(database.db);
});
afterAll(() => database.close());

async function payout(status: 'approved' | 'signing') {
  const db = database.db;
  const { merchant } = await approvedMerchantWithKey(db, systemClock, 'test', { name: 'Shop' });
  const m = (await findMerchant(db, merchant.merchant_id))!;
  await creditMerchant(db, systemClock, 'test', catalog, m.id, { asset: 'USDT_TRON', amount: '50', memo: 'seed' });
  const to = newAddress();
  await addToWhitelist(db, systemClock, 'test', catalog, m.id, { asset: 'USDT_TRON', address: to, delay: '0' });
  const r = await createPayout({ db, clock: systemClock, catalog }, m, {
    reference: 'r1',
    asset: 'USDT_TRON',
    to_address: to,
    amount: '10',
  });
  if (status === 'signing')
    await db
      .updateTable('payouts')
      .set({ status: 'signing', tx_hash: 'ab'.repeat(32) })
      .where('id', '=', r.payout.payout_id)
      .execute();
  return { merchantId: m.id, id: r.payout.payout_id };
}

describe('payout worker: operator commands', () => {
  it('payout cancel rejects a payout not yet signing and releases its reservation; refuses once signing began', async () => {
    const p = await payout('approved');
    expect((await balance(database.db, p.merchantId, 'USDT_TRON')).reserved).toBe(10_000_000n);
    const ok = await runCli(['payout', 'cancel', p.id, '--reason', 'merchant asked', '--json'], env);
    expect(ok.code).toBe(0);
    expect(ok.json).toMatchObject({
      payout_id: p.id,
      status: 'rejected',
      reject_reason: 'merchant asked',
      fees: { network: { charged: '0' } },
    });
    expect((await balance(database.db, p.merchantId, 'USDT_TRON')).reserved).toBe(0n);
    const audit = await database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', p.id)
      .where('action', '=', 'payout.cancel')
      .execute();
    expect(audit).toHaveLength(1);

    const again = await runCli(['payout', 'cancel', p.id, '--reason', 'twice', '--json'], env);
    expect(again.code).toBe(1);
    expect(again.json.error.code).toBe('invalid_state');

    const signing = await payout('signing');
    const late = await runCli(['payout', 'cancel', signing.id, '--reason', 'too late', '--json'], env);
    expect(late.json.error.code).toBe('invalid_state');
    expect(late.json.error.message).toMatch(/signing has begun/);
    expect((await balance(database.db, signing.merchantId, 'USDT_TRON')).reserved).toBe(10_000_000n);
  }, 120_000);

  it('wallet limit sets and shows the hot wallet limits; a bad value changes nothing', async () => {
    const set = await runCli(
      ['wallet', 'limit', 'USDT_TRON', '--per-payout', '500', '--per-day', '2000.5', '--fee-limit', '40', '--json'],
      env,
    );
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ asset: 'USDT_TRON', per_payout: '500', per_day: '2000.5', fee_limit: '40' });
    const bad = await runCli(['wallet', 'limit', 'USDT_TRON', '--per-payout', '-3', '--json'], env);
    expect(bad.json.error.code).toBe('invalid_argument');
    const unknown = await runCli(['wallet', 'limit', 'DOGE', '--per-payout', '3', '--json'], env);
    expect(unknown.json.error.code).toBe('asset_not_found');
    const shown = await runCli(['wallet', 'limit', 'USDT_TRON', '--per-day', 'none', '--json'], env);
    expect(shown.json).toMatchObject({ per_payout: '500', per_day: null, fee_limit: '40' });
  }, 120_000);

  it('removes WALLET_PASSPHRASE from the environment once the keystore is unlocked', async () => {
    const ks = await newKeystore();
    process.env.WALLET_PASSPHRASE = PASSPHRASE;
    const config = parseConfig({
      ADMIN_PORT: '0',
      CABINET_PORT: '0',
      PAY_PORT: '0',
      ...env,
      WALLET_KEYSTORE: ks.keystore,
      WALLET_PASSPHRASE: PASSPHRASE,
    });
    const unlocked = await unlockWallet(database.db, systemClock, config);
    expect(unlocked.hotAddress).toBe(ks.hotAddress);
    expect(process.env.WALLET_PASSPHRASE).toBeUndefined();
  });
});
