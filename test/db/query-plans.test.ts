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
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase, type Db, type Tx } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { DB } from '../../src/db/schema.js';
import { findDepositAddresses, findUserAddress, hotWalletAddress } from '../../src/addresses/store.js';
import { merchantSwitch, operatorSwitch, paymentSwitches } from '../../src/assets/store.js';
import { pageDeposits, pageInvoices, pagePayouts } from '../../src/cabinet/store.js';
import { ManualClock } from '../../src/clock.js';
import { findDeposit, liveDepositsOfInvoice, orphanAbove, unsettledDeposits } from '../../src/deposits/store.js';
import { feeInForce, feesInForce } from '../../src/fees/store.js';
import { settleInvoice } from '../../src/invoices/settlement.js';
import {
  findInvoice,
  findInvoiceByOrder,
  invoiceOfAddress,
  oldestOpenOfAddress,
  overdueCreated,
  overdueOpen,
  transitionInvoice,
} from '../../src/invoices/store.js';
import { findKeyWithMerchant } from '../../src/keys/store.js';
import { heldReservation } from '../../src/ledger/service.js';
import { lastEntry } from '../../src/ledger/store.js';
import { countByStatus } from '../../src/operations/metrics.js';
import {
  findPayout,
  findPayoutByReference,
  findPayoutForOperator,
  listPayoutsForOperator,
  updatePayoutStatus,
} from '../../src/payouts/store.js';
import { signedToday } from '../../src/payouts/worker/limits.js';
import { inFlightPayouts, payoutsIn, queuedPayoutCount } from '../../src/payouts/worker/store.js';
import { scanSlice } from '../../src/sweeper/scan.js';
import { duePairsInSlice, duePairsSince, lastFinalBlock, nonEmptyMarks } from '../../src/sweeper/store.js';
import { eventKeyRecorded, eventsOf, subjectEventCount } from '../../src/webhooks/outbox.js';
import {
  claim,
  dueHeads,
  failedDeliveryCount,
  nextDue,
  pruneAttemptsBefore,
  pruneDeliveriesBefore,
  recordAttempt,
} from '../../src/webhooks/store.js';
import { dropScannedAbove, lowestScanned, pruneScanned, scannedBlock, scannedFrom } from '../../src/watcher/store.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

interface HotQuery {
  name: string;
  /** Calls the store function as the request path or the job does. */
  /** Given a transaction, so writers and reads alike can run (the transaction records no statement). */
  run: (db: Tx) => Promise<unknown>;
  /** The index (or primary key) the plan must use. */
  index: string | RegExp;
  /**
   * The plan walks an index in order and stops at the LIMIT (newest first), or walks a partial
   * index that holds only the rows asked for: "SCAN t USING INDEX i" is then the intended plan, a
   * bounded walk, not a scan of the table.
   */
  walk?: boolean;
  /** Steps "SCAN x" that read no table: a CTE's rows (the dispatcher's merchants with pending deliveries). */
  scans?: RegExp;
  /** Rows come in index order: no temporary B-tree sorts them (all of them) before the LIMIT. */
  ordered?: boolean;
}

const M = '00000000-0000-4000-8000-000000000001';
const ID = '00000000-0000-4000-8000-000000000002';
const NOW = '2026-01-01T00:00:00.000Z';
const ADDR = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const ADDR2 = 'TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj';
const TX = 'ab'.repeat(32);
const settle = { clock: new ManualClock(NOW), horizon: NOW };
const attempt = {
  deliveryId: ID,
  merchantId: M,
  grant: 'h#1',
  at: NOW,
  url: 'https://example.com/hook',
  statusCode: 204,
  durationMs: 5,
  outcome: 'delivered' as const,
  error: null,
  excerpt: null,
  windowStartedAt: NOW,
  nextAttemptAt: null,
};

export const HOT_QUERIES: HotQuery[] = [
  // Per request.
  { name: 'GET /v1/invoices/{id}', run: (db) => findInvoice(db, M, ID), index: 'sqlite_autoindex_invoices_1' },
  {
    name: 'POST /v1/invoices: replay by order_id',
    run: (db) => findInvoiceByOrder(db, M, 'order-1'),
    index: 'invoices_order',
  },
  {
    name: 'POST /v1/invoices: the operator and merchant switches, in one statement',
    // A select without FROM returns one row, which the capturing executor does not: the SQL is taken.
    run: (db) => paymentSwitches(db, M, 'USDT_TRON').catch(() => undefined),
    index: /sqlite_autoindex_asset_switches_1[\s\S]*sqlite_autoindex_merchant_asset_switches_1/,
    // The one row a select without FROM reads, not a table.
    scans: /^SCAN CONSTANT ROW$/,
  },
  {
    name: 'POST /v1/invoices: the service fee and the fixed amount in force, in one statement',
    run: (db) =>
      feesInForce(
        db,
        [
          { kind: 'service', merchantId: M },
          { kind: 'invoice', asset: 'USDT_TRON' },
        ],
        NOW,
      ),
    index: /fee_schedules_lookup[\s\S]*fee_schedules_lookup/,
  },
  {
    name: 'GET /v1/assets/{asset}, payouts: operator switch',
    run: (db) => operatorSwitch(db, 'USDT_TRON'),
    index: 'sqlite_autoindex_asset_switches_1',
  },
  {
    name: 'merchant switch',
    run: (db) => merchantSwitch(db, M, 'USDT_TRON'),
    index: /sqlite_autoindex_merchant_asset_switches_1/,
  },
  {
    name: 'the payment page: service fee in force',
    run: (db) => feeInForce(db, { kind: 'service', merchantId: M }, NOW),
    index: 'fee_schedules_lookup',
  },
  {
    name: 'the payment page: fixed amount in force',
    run: (db) => feeInForce(db, { kind: 'invoice', asset: 'USDT_TRON' }, NOW),
    index: 'fee_schedules_lookup',
  },
  {
    name: 'permanent address of a user',
    run: (db) => findUserAddress(db, M, 'user-1'),
    index: 'deposit_addresses_user',
  },
  { name: 'GET /v1/payouts/{id}', run: (db) => findPayout(db, M, ID), index: 'sqlite_autoindex_payouts_1' },
  {
    name: 'POST /v1/payouts: replay by reference',
    run: (db) => findPayoutByReference(db, M, 'ref-1'),
    index: 'payouts_reference',
  },
  {
    name: 'authentication: key row and merchant',
    run: (db) => findKeyWithMerchant(db, 'abcdef0123456789'),
    index: 'sqlite_autoindex_api_keys_1',
  },
  // On a schedule.
  {
    name: 'expiry: overdue created invoices',
    run: (db) => overdueCreated(db, NOW, 200),
    index: 'invoices_expiry',
    ordered: true,
  },
  {
    name: 'payout list: by status',
    run: (db) => listPayoutsForOperator(db, { status: 'pending_review', limit: 50 }),
    index: 'payouts_status',
  },
  {
    name: 'payout list: all, newest first',
    run: (db) => listPayoutsForOperator(db, { limit: 100 }),
    index: 'payouts_created',
    walk: true,
  },
  {
    name: 'payout list: by merchant',
    run: (db) => listPayoutsForOperator(db, { merchantId: M, limit: 100 }),
    index: /INDEX payouts_\w+ \(merchant_id=\?\)/,
  },
  // The next page of a list, after a cursor (src/db/keyset.ts): a seek in the list's index.
  {
    name: 'payout list: the next page, newest first',
    run: (db) => listPayoutsForOperator(db, { limit: 100, after: { at: NOW, id: ID } }),
    index: /INDEX payouts_created \(\(created_at,id\)<\(\?,\?\)\)/,
    ordered: true,
  },
  {
    name: "cabinet: the next page of a merchant's invoices",
    run: (db) => pageInvoices(db, M, {}, { at: NOW, id: ID }, 50),
    index: /INDEX invoices_merchant_created \(merchant_id=\? AND \(created_at,id\)<\(\?,\?\)\)/,
    ordered: true,
  },
  {
    name: "cabinet: the next page of a merchant's payouts",
    run: (db) => pagePayouts(db, M, {}, { at: NOW, id: ID }, 50),
    index: /INDEX payouts_merchant_created \(merchant_id=\? AND \(created_at,id\)<\(\?,\?\)\)/,
    ordered: true,
  },
  {
    name: "cabinet: the next page of a merchant's deposits",
    run: (db) => pageDeposits(db, M, { unattached: false }, { at: NOW, id: ID }, 50),
    index: /INDEX deposits_merchant_created \(merchant_id=\? AND \(created_at,id\)<\(\?,\?\)\)/,
    ordered: true,
  },
  { name: 'events of a merchant after a seq', run: (db) => eventsOf(db, M, 10, 100), index: 'events_merchant' },
  // The deposit addresses among a range's receivers (the watcher), the payout worker's own-address
  // check, the sweeper's derivation index of an address.
  {
    name: 'watcher: deposit addresses among receivers',
    run: (db) => findDepositAddresses(db, [ADDR, ADDR2]),
    index: /SEARCH deposit_addresses USING INDEX deposit_addresses_address \(address=\?\)/,
  },
  {
    name: 'watcher, payout worker: the hot wallet address',
    run: (db) => hotWalletAddress(db),
    index: /SEARCH wallet USING INTEGER PRIMARY KEY \(rowid=\?\)/,
  },
  // A walk of a partial index that holds only the deposits still to settle: bounded by those.
  {
    name: 'watcher: deposits to settle, every tick',
    run: (db) => unsettledDeposits(db, { head: 1_000_000, solid: 999_981, scannedTo: 1_000_000 }),
    index: /(SCAN|SEARCH) d USING INDEX deposits_unsettled/,
    walk: true,
  },
  {
    name: 'sweeper: pairs with recently final deposits',
    run: (db) => duePairsSince(db, NOW, 50),
    index: /SEARCH d USING INDEX deposits_final_by_update \(updated_at>\?\)/,
  },
  // The full scan's slice: where it ends (index only), then its due pairs, a range of addresses.
  {
    name: 'sweeper full scan: a slice',
    run: (db) => scanSlice(db, { address: ADDR, asset: null }, 2000, 50),
    index: /SEARCH (d|deposits) USING (COVERING )?INDEX deposits_final_by_address \(address>\?( AND address<\?)?\)/,
  },
  {
    name: 'sweeper full scan: the last slice',
    run: (db) => duePairsInSlice(db, { address: ADDR, asset: null }, undefined, 50),
    index: /SEARCH d USING INDEX deposits_final_by_address \(address>\?\)/,
  },
  {
    name: 'sweeper full scan: a slice resumed after a pair',
    run: (db) => duePairsInSlice(db, { address: ADDR, asset: 'USDT_TRON' }, ADDR2, 50),
    index: /SEARCH d USING INDEX deposits_final_by_address \(\(address,asset\)>\(\?,\?\) AND address<\?\)/,
  },
  // Every other scheduled query over a large table (docs/adr/0036-queries-stay-index-searches.md).
  // The chain watcher's write transaction, per block range: recording transfers…
  { name: 'watcher: a transfer recorded before', run: (db) => findDeposit(db, TX, 0), index: 'deposits_tx_log' },
  {
    name: 'watcher: the invoice of a per-invoice address',
    run: (db) => invoiceOfAddress(db, ADDR, 7),
    index: /INDEX invoices_address_index \(address_index=\?\)/,
  },
  {
    name: 'watcher: the oldest open invoice of a permanent address',
    run: (db) => oldestOpenOfAddress(db, ADDR, 7, 'USDT_TRON', NOW),
    index: /INDEX invoices_address_index \(address_index=\? AND status=\?\)/,
  },
  // …then progress, expiry against the horizon and settlement of the invoices touched.
  {
    name: 'watcher: overdue open invoices',
    run: (db) => overdueOpen(db, NOW, 200),
    index: /INDEX invoices_expiry \(status=\? AND expires_at<\?\)/,
    ordered: true,
  },
  {
    name: 'watcher settlement: the invoice',
    run: (db) => settleInvoice(db, settle, ID),
    index: 'sqlite_autoindex_invoices_1',
  },
  {
    name: 'watcher settlement: the live deposits of an invoice',
    run: (db) => liveDepositsOfInvoice(db, ID),
    index: /INDEX deposits_invoice \(invoice_id=\?\)/,
  },
  {
    name: 'watcher settlement, expiry: events of a subject so far',
    run: (db) => subjectEventCount(db, ID),
    index: 'events_subject',
  },
  {
    name: 'watcher, expiry, payout worker: a replayed transition',
    run: (db) => eventKeyRecorded(db, `invoice:${ID}:seen:0`),
    index: 'events_dedupe_key',
  },
  {
    name: 'watcher, payout worker: the newest ledger entry of a merchant asset',
    run: (db) => lastEntry(db, M, 'USDT_TRON'),
    index: 'ledger_entries_tail',
  },
  // A fork: back to the common ancestor.
  // Either partial index holds only deposits not yet final (and a few final ones not yet credited).
  {
    name: 'watcher fork: live deposits above the ancestor',
    run: (db) => orphanAbove(db, 1_000, NOW),
    index: /INDEX deposits_(open|unsettled) \(block_number>\?\)/,
  },
  { name: 'watcher: a scanned block', run: (db) => scannedBlock(db, 1_000), index: /INTEGER PRIMARY KEY \(rowid=\?\)/ },
  {
    name: 'watcher fork: scanned blocks from a height',
    run: (db) => scannedFrom(db, 1_000),
    index: /INTEGER PRIMARY KEY \(rowid>\?\)/,
  },
  { name: 'watcher fork: the lowest scanned block', run: (db) => lowestScanned(db), index: /^SEARCH scanned_blocks$/m },
  {
    name: 'watcher: scanned blocks below the solid height',
    run: (db) => pruneScanned(db, 1_000, 1_100),
    index: /INTEGER PRIMARY KEY \(rowid<\?\)/,
  },
  {
    name: 'watcher fork: scanned blocks above the ancestor',
    run: (db) => dropScannedAbove(db, 1_000),
    index: /INTEGER PRIMARY KEY \(rowid>\?\)/,
  },
  // Invoice expiry (every 5 s).
  {
    name: 'expiry: the status compare-and-set',
    run: (db) => transitionInvoice(db, ID, 'created', 'expired', NOW),
    index: 'sqlite_autoindex_invoices_1',
  },
  // The sweeper: starting a sweep, and the operator's `paygate sweep` requests.
  // The sweeper's derivation index of an address: 'watcher: deposit addresses among receivers' above.
  {
    name: 'sweeper request: the last final block of a pair',
    run: (db) => lastFinalBlock(db, ADDR, 'USDT_TRON'),
    index: /INDEX deposits_final_by_address \(address=\? AND asset=\?\)/,
  },
  {
    name: 'sweeper request for every address: marks holding a balance',
    run: (db) => nonEmptyMarks(db),
    index: 'sweep_marks_held',
    walk: true,
  },
  // The payout worker (every second): pages of each status, the limits, the transitions.
  {
    name: 'payout worker: the first page of a status',
    run: (db) => payoutsIn(db, 'queued', 25),
    index: /INDEX payouts_status \(status=\?\)/,
  },
  {
    name: 'payout worker: the next page of a status',
    run: (db) => payoutsIn(db, 'queued', 25, { created_at: NOW, id: ID }),
    index: /INDEX payouts_status \(status=\? AND created_at>\?\)/,
  },
  {
    name: 'payout worker: the payout read again',
    run: (db) => findPayoutForOperator(db, ID),
    index: 'sqlite_autoindex_payouts_1',
  },
  {
    name: 'payout worker: hot wallet day limit',
    run: (db) => signedToday(db, 'USDT_TRON', new Date(NOW), ID),
    index: /INDEX payouts_signed_day \(asset=\? AND first_signed_at>\? AND first_signed_at<\?\)/,
  },
  {
    name: 'payout worker: payouts in flight',
    run: (db) => inFlightPayouts(db),
    index: /INDEX payouts_status \(status=\?\)/,
  },
  {
    name: 'payout worker: the reservation of a payout',
    run: (db) => heldReservation(db, M, ID),
    index: /INDEX ledger_entries_payout \(payout_id=\?\)/,
  },
  {
    name: 'payout worker: the status compare-and-set',
    run: (db) => updatePayoutStatus(db, ID, 'queued', { status: 'signing', updated_at: NOW }),
    index: 'sqlite_autoindex_payouts_1',
  },
  // The webhook dispatcher: its claim round, a merchant lane's next delivery, the attempt's record.
  {
    name: 'webhook dispatcher: due heads',
    run: (db) => dueHeads(db, { now: NOW, grant: 'h#1', limit: 8, exclude: [] }),
    index: /SEARCH d USING INDEX webhook_deliveries_pending \(merchant_id=\? AND merchant_seq=\?\)/,
    scans: /^SCAN m$/,
  },
  {
    name: 'webhook dispatcher: due heads, merchants in flight excluded',
    run: (db) => dueHeads(db, { now: NOW, grant: 'h#1', limit: 8, exclude: [M] }),
    index: /SEARCH d USING INDEX webhook_deliveries_pending \(merchant_id=\? AND merchant_seq=\?\)/,
    scans: /^SCAN m$/,
  },
  {
    name: 'webhook dispatcher: the next delivery of a lane',
    run: (db) => nextDue(db, { merchantId: M, now: NOW, grant: 'h#1' }),
    index: /SEARCH d USING INDEX webhook_deliveries_pending \(merchant_id=\? AND merchant_seq=\?\)/,
  },
  {
    name: 'webhook dispatcher: a claim',
    run: (db) => claim(db, [ID], 'h', NOW),
    index: 'sqlite_autoindex_webhook_deliveries_1',
  },
  {
    name: 'webhook dispatcher: claims',
    run: (db) => claim(db, [ID, M], 'h', NOW),
    index: 'sqlite_autoindex_webhook_deliveries_1',
  },
  {
    name: 'webhook dispatcher: an attempt recorded',
    run: (db) => recordAttempt(db, attempt),
    index: 'sqlite_autoindex_webhook_deliveries_1',
  },
  // The delivery log's retention (daily).
  {
    name: 'webhook log prune: old attempts',
    run: (db) => pruneAttemptsBefore(db, NOW, 2_000),
    index: /INDEX webhook_attempts_at \(at<\?\)/,
    ordered: true,
  },
  {
    name: 'webhook log prune: old finished deliveries',
    run: (db) => pruneDeliveriesBefore(db, NOW, 2_000),
    index: /INDEX webhook_deliveries_status \(status=\? AND updated_at<\?\)/,
  },
  // Every /metrics scrape.
  {
    name: 'metrics: invoices by status',
    run: (db) => countByStatus(db, 'invoices'),
    index: /SEARCH status_counts USING PRIMARY KEY \(table_name=\?\)/,
  },
  {
    name: 'metrics: deposits by status',
    run: (db) => countByStatus(db, 'deposits'),
    index: /SEARCH status_counts USING PRIMARY KEY \(table_name=\?\)/,
  },
  {
    name: 'metrics: payouts by status',
    run: (db) => countByStatus(db, 'payouts'),
    index: /SEARCH status_counts USING PRIMARY KEY \(table_name=\?\)/,
  },
  { name: 'metrics: payouts queued', run: (db) => queuedPayoutCount(db), index: /INDEX payouts_status \(status=\?\)/ },
  {
    name: 'metrics: failed webhook deliveries',
    run: (db) => failedDeliveryCount(db),
    index: /INDEX webhook_deliveries_status \(status=\?\)/,
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

describeSqliteOnly("SQLite's query planner (EXPLAIN QUERY PLAN)")('query plans of the hot queries', () => {
  let database: SqliteDatabase;
  beforeAll(async () => {
    database = openSqlite(path.join(tempDir(), 'plans.db'));
    await migrateToLatest(database.db);
  });
  afterAll(() => database.close());

  it.each(HOT_QUERIES.map((q) => [q.name, q] as const))('%s uses its index and scans no table', async (_name, q) => {
    const { db, captured } = capturing();
    await db.transaction().execute((trx) => q.run(trx));
    expect(captured.length).toBeGreaterThan(0);
    for (const c of captured) {
      const plan = database.sqlite.prepare(`explain query plan ${c.sql}`).all(...(c.parameters as unknown[])) as {
        detail: string;
      }[];
      const steps = plan.map((p) => p.detail);
      // "SCAN t" reads every row; "SCAN t USING INDEX i" walks a whole index: both grow with the table.
      const scans = steps.filter(
        (s) => /^SCAN /.test(s) && !(q.walk && / USING (COVERING )?INDEX /.test(s)) && !q.scans?.test(s),
      );
      expect(scans, `${c.sql}\n${steps.join('\n')}`).toEqual([]);
      expect(steps.join('\n')).toMatch(typeof q.index === 'string' ? new RegExp(`INDEX ${q.index}\\b`) : q.index);
      if (q.ordered)
        expect(
          steps.filter((s) => /TEMP B-TREE/.test(s)),
          `${c.sql}\n${steps.join('\n')}`,
        ).toEqual([]);
    }
  });
});
