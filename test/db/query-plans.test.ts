/**
 * Every query that runs per request on the hot path or on a schedule must use an index: with a
 * million invoices a table scan is seconds, not microseconds. Each entry runs the real store
 * function against a capturing executor (it records the SQL and parameters instead of running
 * them), then asks SQLite for the plan of exactly that statement on a migrated database and
 * checks that no step scans a table and that the expected index is used.
 *
 * Adding a query (the watcher's address matching, the webhook dispatcher's due deliveries…): one
 * entry in HOT_QUERIES with the function as its caller calls it and the index it must use.
 */
import {
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { DB } from '../../src/db/schema.js';
import { addressesAfter, findDepositAddresses, findUserAddress } from '../../src/addresses/store.js';
import { merchantSwitch, operatorSwitch } from '../../src/assets/store.js';
import { unsettledDeposits } from '../../src/deposits/store.js';
import { feeInForce } from '../../src/fees/store.js';
import { findInvoice, findInvoiceByOrder, overdueCreated } from '../../src/invoices/store.js';
import { findKey } from '../../src/keys/store.js';
import { findPayout, findPayoutByReference, listPayoutsForOperator } from '../../src/payouts/store.js';
import { scanSlice } from '../../src/sweeper/scan.js';
import { duePairsInSlice, duePairsSince } from '../../src/sweeper/store.js';
import { eventsOf } from '../../src/webhooks/outbox.js';
import { tempDir } from '../helpers/app.js';

interface HotQuery {
  name: string;
  /** Calls the store function as the request path or the job does. */
  run: (db: Db) => Promise<unknown>;
  /** The index (or primary key) the plan must use. */
  index: string | RegExp;
  /**
   * The plan walks an index in order and stops at the LIMIT (newest first), or walks a partial
   * index that holds only the rows asked for: "SCAN t USING INDEX i" is then the intended plan, a
   * bounded walk, not a scan of the table.
   */
  walk?: boolean;
}

const M = '00000000-0000-4000-8000-000000000001';
const ID = '00000000-0000-4000-8000-000000000002';
const NOW = '2026-01-01T00:00:00.000Z';
const ADDR = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const ADDR2 = 'TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj';

export const HOT_QUERIES: HotQuery[] = [
  // Per request.
  { name: 'GET /v1/invoices/{id}', run: (db) => findInvoice(db, M, ID), index: 'sqlite_autoindex_invoices_1' },
  { name: 'POST /v1/invoices: replay by order_id', run: (db) => findInvoiceByOrder(db, M, 'order-1'), index: 'invoices_order' },
  { name: 'POST /v1/invoices: operator switch', run: (db) => operatorSwitch(db, 'USDT_TRON'), index: 'sqlite_autoindex_asset_switches_1' },
  { name: 'POST /v1/invoices: merchant switch', run: (db) => merchantSwitch(db, M, 'USDT_TRON'), index: /sqlite_autoindex_merchant_asset_switches_1/ },
  { name: 'POST /v1/invoices: service fee in force', run: (db) => feeInForce(db, { kind: 'service', merchantId: M }, NOW), index: 'fee_schedules_lookup' },
  { name: 'POST /v1/invoices: fixed amount in force', run: (db) => feeInForce(db, { kind: 'invoice', asset: 'USDT_TRON' }, NOW), index: 'fee_schedules_lookup' },
  { name: 'permanent address of a user', run: (db) => findUserAddress(db, M, 'user-1'), index: 'deposit_addresses_user' },
  { name: 'GET /v1/payouts/{id}', run: (db) => findPayout(db, M, ID), index: 'sqlite_autoindex_payouts_1' },
  { name: 'POST /v1/payouts: replay by reference', run: (db) => findPayoutByReference(db, M, 'ref-1'), index: 'payouts_reference' },
  { name: 'authentication: key row', run: (db) => findKey(db, 'abcdef0123456789'), index: 'sqlite_autoindex_api_keys_1' },
  // On a schedule.
  { name: 'expiry: overdue created invoices', run: (db) => overdueCreated(db, NOW, 200), index: 'invoices_expiry' },
  { name: 'payout list: by status', run: (db) => listPayoutsForOperator(db, { status: 'pending_review', limit: 50 }), index: 'payouts_status' },
  { name: 'payout list: all, newest first', run: (db) => listPayoutsForOperator(db, { limit: 100 }), index: 'payouts_created', walk: true },
  { name: 'payout list: by merchant', run: (db) => listPayoutsForOperator(db, { merchantId: M, limit: 100 }), index: /INDEX payouts_\w+ \(merchant_id=\?\)/ },
  { name: 'events of a merchant after a seq', run: (db) => eventsOf(db, M, 10, 100), index: 'events_merchant' },
  // The chain watcher: its watch list's load by pages, its confirmation of prefix hits per range.
  { name: 'watcher: addresses after an index', run: (db) => addressesAfter(db, 1_000, 10_000), index: /sqlite_autoindex_deposit_addresses_2 \(derivation_index>\?\)/ },
  { name: 'watcher: prefix hits confirmed', run: (db) => findDepositAddresses(db, ['TWJqDfttAuhunntoDEtFwP5qBKAu5y9Tip', 'TNs1VjGKr8QQTrR4MWenYZruamHmjKTgxg']), index: /sqlite_autoindex_deposit_addresses_1 \(address=\?\)/ },
  // A walk of a partial index that holds only the deposits still to settle: bounded by those.
  { name: 'watcher: deposits to settle, every tick', run: (db) => unsettledDeposits(db), index: /SCAN d USING INDEX deposits_unsettled/, walk: true },
  { name: 'sweeper: pairs with recently final deposits', run: (db) => duePairsSince(db, NOW, 50), index: /SEARCH d USING INDEX deposits_final_by_update \(updated_at>\?\)/ },
  // The full scan's slice: where it ends (index only), then its due pairs, a range of addresses.
  { name: 'sweeper full scan: a slice', run: (db) => scanSlice(db, { address: ADDR, asset: null }, 2000, 50), index: /SEARCH (d|deposits) USING (COVERING )?INDEX deposits_final_by_address \(address>\?( AND address<\?)?\)/ },
  { name: 'sweeper full scan: the last slice', run: (db) => duePairsInSlice(db, { address: ADDR, asset: null }, undefined, 50), index: /SEARCH d USING INDEX deposits_final_by_address \(address>\?\)/ },
  {
    name: 'sweeper full scan: a slice resumed after a pair',
    run: (db) => duePairsInSlice(db, { address: ADDR, asset: 'USDT_TRON' }, ADDR2, 50),
    index: /SEARCH d USING INDEX deposits_final_by_address \(\(address,asset\)>\(\?,\?\) AND address<\?\)/,
  },
];

/** A Kysely whose every query is recorded, not run (reads return no rows). */
function capturing(): { db: Db; captured: CompiledQuery[] } {
  const captured: CompiledQuery[] = [];
  const connection: DatabaseConnection = {
    async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
      captured.push(q);
      return { rows: [] };
    },
    // eslint-disable-next-line require-yield
    async *streamQuery() {
      throw new Error('not used');
    },
  };
  const driver: Driver = Object.assign(new DummyDriver(), { acquireConnection: async () => connection });
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  return { db, captured };
}

describe('query plans of the hot queries', () => {
  let database: Database;
  beforeAll(async () => {
    database = openDatabase(path.join(tempDir(), 'plans.db'));
    await migrateToLatest(database.db);
  });
  afterAll(() => database.close());

  it.each(HOT_QUERIES.map((q) => [q.name, q] as const))('%s uses its index and scans no table', async (_name, q) => {
    const { db, captured } = capturing();
    await q.run(db);
    expect(captured.length).toBeGreaterThan(0);
    for (const c of captured) {
      const plan = database.sqlite.prepare(`explain query plan ${c.sql}`).all(...(c.parameters as unknown[])) as { detail: string }[];
      const steps = plan.map((p) => p.detail);
      // "SCAN t" reads every row; "SCAN t USING INDEX i" walks a whole index: both grow with the table.
      const scans = steps.filter((s) => /^SCAN /.test(s) && !(q.walk && / USING (COVERING )?INDEX /.test(s)));
      expect(scans, `${c.sql}\n${steps.join('\n')}`).toEqual([]);
      expect(steps.join('\n')).toMatch(typeof q.index === 'string' ? new RegExp(`INDEX ${q.index}\\b`) : q.index);
    }
  });
});
