/**
 * Every query of the reports reads one index range in report order: a report of a period costs
 * what the period holds, not the table, and no batch sorts the whole period first. Each store
 * function runs against a capturing executor (the SQL is recorded, not run), and SQLite plans
 * exactly that statement on a migrated database.
 */
import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { DB } from '../../src/db/schema.js';
import { findKeyWithMerchant } from '../../src/keys/store.js';
import {
  depositBatch,
  entryBatch,
  invoiceBatch,
  invoicesPaid,
  lastEntryBefore,
  nextAccount,
  payoutBatch,
} from '../../src/reports/store.js';
import {
  depositAddressBatch,
  depositsAt,
  latestCheck,
  marksAt,
  payoutBatch as payoutFigures,
  sweepFeeBatch,
  toppedUpAmong,
} from '../../src/reserves/store.js';
import { tempDir } from '../helpers/app.js';

const M = '00000000-0000-4000-8000-000000000001';
const ID = '00000000-0000-4000-8000-000000000002';
const period = { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' };
const after = { at: '2026-03-05T00:00:00.000Z', id: ID };
const account = { merchant_id: M, asset: 'USDT_TRON' };

interface ReportQuery {
  name: string;
  run: (db: Db) => Promise<unknown>;
  index: RegExp;
}

const QUERIES: ReportQuery[] = [
  {
    name: 'invoices: first batch',
    run: (db) => invoiceBatch(db, { period, merchantId: null, after: null, limit: 1000 }),
    index: /SEARCH invoices USING INDEX invoices_period \(created_at>\? AND created_at<\?\)/,
  },
  {
    name: 'invoices of a merchant: next batch',
    run: (db) => invoiceBatch(db, { period, merchantId: M, after, limit: 1000 }),
    index: /SEARCH invoices USING INDEX invoices_period \(\(created_at,id\)>\(\?,\?\) AND created_at<\?\)/,
  },
  {
    name: "invoices: the batch's transaction hashes",
    run: (db) => invoicesPaid(db, [ID, M]),
    index: /SEARCH deposits USING INDEX deposits_invoice \(invoice_id=\?\)/,
  },
  {
    name: 'payouts: next batch',
    run: (db) => payoutBatch(db, { period, merchantId: M, after, limit: 1000 }),
    index: /SEARCH payouts USING INDEX payouts_created \(\(created_at,id\)>\(\?,\?\) AND created_at<\?\)/,
  },
  {
    name: 'deposits: next batch',
    run: (db) => depositBatch(db, { period, merchantId: null, after, limit: 1000 }),
    index: /SEARCH deposits USING INDEX deposits_period \(\(block_time,id\)>\(\?,\?\) AND block_time<\?\)/,
  },
  {
    name: 'ledger: the next account',
    run: (db) => nextAccount(db, null, account),
    index:
      /SEARCH ledger_entries USING COVERING INDEX ledger_entries_(tail|period) \(\(merchant_id,asset\)>\(\?,\?\)\)/,
  },
  {
    name: "ledger: a merchant's next account",
    run: (db) => nextAccount(db, M, account),
    index: /SEARCH ledger_entries USING COVERING INDEX ledger_entries_(tail|period) \(merchant_id=\? AND asset>\?\)/,
  },
  {
    name: 'ledger: the balance at a moment',
    run: (db) => lastEntryBefore(db, account, period.from),
    index: /SEARCH ledger_entries USING INDEX ledger_entries_period \(merchant_id=\? AND asset=\? AND created_at<\?\)/,
  },
  {
    name: "ledger: an account's entries",
    run: (db) => entryBatch(db, account, 10, 5_000, 1000),
    index:
      /SEARCH ledger_entries USING INDEX ledger_entries_tail \(merchant_id=\? AND asset=\? AND seq>\? AND seq<\?\)/,
  },
  {
    name: 'reserves: the next deposit addresses',
    run: (db) => depositAddressBatch(db, 'T', 200),
    index: /SEARCH deposits USING COVERING INDEX deposits_(address|final_by_address|merchant_address)? ?\(address>\?\)/,
  },
  {
    name: 'reserves: the deposits of a batch of addresses',
    run: (db) => depositsAt(db, ['Ta', 'Tb']),
    index: /SEARCH deposits USING INDEX deposits_address \(address=\?/,
  },
  {
    name: "reserves: the sweeper's marks of a batch",
    run: (db) => marksAt(db, ['Ta', 'Tb']),
    index: /SEARCH sweep_marks USING INDEX sqlite_autoindex_sweep_marks_1 \(address=\?\)/,
  },
  {
    name: 'reserves: topped-up addresses of a batch',
    run: (db) => toppedUpAmong(db, ['Ta', 'Tb']),
    index: /SEARCH sweeps USING INDEX sweeps_address \(address=\?\)/,
  },
  {
    name: 'reserves: payouts by id',
    run: (db) => payoutFigures(db, ID, 1000),
    index: /SEARCH payouts USING INDEX sqlite_autoindex_payouts_1 \(id>\?\)/,
  },
  {
    name: 'reserves: sweep transaction fees by id',
    run: (db) => sweepFeeBatch(db, 10, 1000),
    index: /SEARCH sweep_txs USING INTEGER PRIMARY KEY \(rowid>\?\)/,
  },
  {
    name: 'reserves: the latest check (metrics, /readyz)',
    run: (db) => latestCheck(db),
    index: /SEARCH reserve_checks USING (COVERING )?INDEX sqlite_autoindex_reserve_checks_1/,
  },
  {
    name: 'authentication: the key with its merchant and terms, one query',
    run: (db) => findKeyWithMerchant(db, 'abcdef0123456789'),
    index: /SEARCH api_keys USING INDEX sqlite_autoindex_api_keys_1 \(key_id=\?\)/,
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

describe('query plans of the reports', () => {
  let database: Database;
  beforeAll(async () => {
    database = openDatabase(path.join(tempDir(), 'plans.db'));
    await migrateToLatest(database.db);
  });
  afterAll(() => database.close());

  it.each(QUERIES.map((q) => [q.name, q] as const))('%s: one index range in order', async (_name, q) => {
    const { db, captured } = capturing();
    await q.run(db);
    expect(captured.length).toBeGreaterThan(0);
    // Authentication reads a key's terms in the query that reads the key: never a second one.
    if (q.name.startsWith('authentication')) expect(captured).toHaveLength(1);
    for (const c of captured) {
      const steps = (
        database.sqlite!.prepare(`explain query plan ${c.sql}`).all(...(c.parameters as unknown[])) as {
          detail: string;
        }[]
      ).map((p) => p.detail);
      const text = `${c.sql}\n${steps.join('\n')}`;
      expect(
        steps.filter((s) => /^SCAN /.test(s)),
        text,
      ).toEqual([]);
      expect(steps.join('\n'), text).toMatch(q.index);
    }
  });

  it('a batch comes in index order: no temporary B-tree sorts the period', async () => {
    for (const q of QUERIES.filter((x) => !x.name.includes('transaction hashes'))) {
      const { db, captured } = capturing();
      await q.run(db);
      const steps = (
        database
          .sqlite!.prepare(`explain query plan ${captured[0]!.sql}`)
          .all(...(captured[0]!.parameters as unknown[])) as {
          detail: string;
        }[]
      ).map((p) => p.detail);
      expect(
        steps.filter((s) => /TEMP B-TREE/.test(s)),
        `${q.name}: ${steps.join('\n')}`,
      ).toEqual([]);
    }
  });
});
