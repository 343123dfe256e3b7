/**
 * A running app (real HTTP on loopback, real SQLite file, real argon2 keys) with a ManualClock and
 * the operator tasks payout tests need: fund a merchant, whitelist an address, set limits and fees.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { TronWeb } from 'tronweb';
import { ManualClock } from '../../src/clock.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { balance } from '../../src/ledger/service.js';
import { setPayoutLimits } from '../../src/payouts/limits.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { setPayoutFee } from '../../src/fees/payout.js';
import { formatAmount } from '../../src/money.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import * as helpers from '../helpers/http.js';

export interface PayoutTestApp extends TestApp {
  clock: ManualClock;
  fund(merchantId: string, amount: string, asset?: string): Promise<void>;
  allow(merchantId: string, address: string, opts?: { asset?: string; delay?: string }): Promise<void>;
  limits(merchantId: string, autoApprove: string | null, daily?: string | null): Promise<void>;
  fee(asset: string, amount: string, percent: string): Promise<void>;
  /** available / reserved / total as decimal text (6-decimal assets). */
  balanceOf(merchantId: string, asset?: string): Promise<{ available: string; reserved: string; total: string }>;
}

export async function startPayoutApp(opts: { clock?: ManualClock } = {}): Promise<PayoutTestApp> {
  const clock = opts.clock ?? new ManualClock('2026-03-01T10:00:00.000Z');
  const t = await startTestApp({ clock, workers: false });
  const db = t.app.services.db;
  const catalog = t.app.services.catalog;
  return {
    ...t,
    clock,
    async fund(merchantId, amount, asset = 'USDT_TRON') {
      await creditMerchant(db, clock, 'test', catalog, merchantId, { asset, amount, memo: 'test funding' });
    },
    async allow(merchantId, address, o = {}) {
      await addToWhitelist(db, clock, 'test', catalog, merchantId, {
        asset: o.asset ?? 'USDT_TRON',
        address,
        delay: o.delay ?? '0',
      });
    },
    async limits(merchantId, autoApprove, daily = null) {
      await setPayoutLimits(db, clock, 'test', merchantId, { autoApproveLimit: autoApprove, dailyLimit: daily });
    },
    async fee(asset, amount, percent) {
      await setPayoutFee(db, clock, 'test', catalog, {
        asset,
        amount,
        percent,
        confirmHighAmount: true,
        confirmHighRate: true,
      });
    },
    async balanceOf(merchantId, asset = 'USDT_TRON') {
      const b = await balance(db, merchantId, asset);
      const d = catalog.get(asset)!.decimals;
      return {
        available: formatAmount(b.available, d),
        reserved: formatAmount(b.reserved, d),
        total: formatAmount(b.balance, d),
      };
    },
  };
}

/** A fresh valid TRON address (checksummed base58). */
export function newAddress(): string {
  return TronWeb.address.fromPrivateKey(randomBytes(32).toString('hex')) as string;
}

let n = 0;
export const newPayout = (to_address: string, over: Record<string, unknown> = {}) => ({
  reference: `ref-${++n}-${randomBytes(4).toString('hex')}`,
  asset: 'USDT_TRON',
  to_address,
  amount: '10',
  ...over,
});

/** A migrated SQLite file in a temp dir, without the HTTP app (for service-level tests). */
export async function openTempDb(): Promise<{
  database: import('../../src/db/database.js').Database;
  close(): Promise<void>;
}> {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const { openTestDatabase } = await import('../helpers/database.js');
  const { migrateToLatest } = await import('../../src/db/migrate.js');
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-payouts-'));
  const database = await openTestDatabase(path.join(dir, 'paygate.db'));
  await migrateToLatest(database.db);
  return {
    database,
    async close() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const PAYOUT_KEYS = [
  'amount',
  'asset',
  'created_at',
  'fees',
  'network',
  'payout_id',
  'reference',
  'review_reasons',
  'status',
  'to_address',
  'tx_hash',
  'updated_at',
];

/**
 * One payout app for the enclosing describe (started in beforeAll, closed in afterAll) and the HTTP
 * and DB shortcuts of the e2e payout tests; `app()` is the running app once beforeAll has run.
 */
export function usePayoutApp() {
  const { api } = helpers;
  let t: PayoutTestApp | undefined;
  beforeAll(async () => {
    t = await startPayoutApp();
  });
  afterAll(() => t?.close());
  const app = (): PayoutTestApp => {
    if (!t) throw new Error('usePayoutApp: the app starts in beforeAll');
    return t;
  };
  const db = () => app().app.services.db;
  return {
    app,
    db,
    post: (key: string, body: unknown) => api(app().url, '/v1/payouts', { key, body }),
    get: (key: string, id: string) => api(app().url, `/v1/payouts/${id}`, { key }),
    payoutRows: (merchantId: string) =>
      db().selectFrom('payouts').selectAll().where('merchant_id', '=', merchantId).execute(),
    reserves: (merchantId: string) =>
      db()
        .selectFrom('ledger_entries')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('kind', '=', 'reserve')
        .execute(),
    /** An approved merchant with `amount` USDT and one usable whitelisted address. */
    async funded(amount = '100') {
      const { merchant, key } = await app().merchant();
      const address = newAddress();
      await app().fund(merchant.merchant_id, amount);
      await app().allow(merchant.merchant_id, address);
      return { id: merchant.merchant_id, key, address };
    },
  };
}
