/**
 * The row counts by status that /metrics reads (migration 0039): the migration counts the rows
 * already there, and its triggers keep the counts equal to a GROUP BY through inserts, status
 * changes (and updates that leave the status alone) and deletes, whatever writes them.
 */
import { Migrator } from 'kysely';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from '../../src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '../../src/db/migrate.js';
import { countByStatus } from '../../src/operations/metrics.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

const TABLES = ['invoices', 'deposits', 'payouts'] as const;
type Table = (typeof TABLES)[number];
const STATUSES: Record<Table, readonly string[]> = {
  invoices: ['created', 'seen', 'confirmed', 'underpaid', 'expired', 'paid_late', 'settled'],
  deposits: ['seen', 'confirmed', 'orphaned'],
  payouts: ['pending_review', 'approved', 'queued', 'signing', 'broadcast', 'confirmed', 'rejected', 'failed'],
};
const AT = '2026-01-01T00:00:00.000Z';

/** A deterministic generator (mulberry32), so a failure replays. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let database: SqliteDatabase;
let next = 0;
const random = prng(12);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;

function insert(table: Table, status = pick(STATUSES[table])): void {
  const n = ++next;
  const id = `row-${n}`;
  const rows: Record<Table, Record<string, unknown>> = {
    invoices: {
      id,
      merchant_id: 'm',
      order_id: `o-${n}`,
      status,
      asset: 'USDT_TRON',
      network: 'tron',
      decimals: 6,
      address: `a-${n}`,
      amount_requested: '1',
      amount_expected: '1',
      amount_received: '0',
      amount_credited: '0',
      service_fee_payer: 'merchant',
      service_fee_percent: '0',
      service_fee_fixed: '0',
      service_fee_amount: '0',
      expires_at: AT,
      created_at: AT,
      updated_at: AT,
    },
    deposits: {
      id,
      merchant_id: 'm',
      address: `a-${n}`,
      asset: 'USDT_TRON',
      decimals: 6,
      amount: '1',
      tx_hash: `t-${n}`,
      log_index: 0,
      block_number: n,
      block_hash: 'h',
      block_time: AT,
      late: 0,
      status,
      confirmations: 0,
      final: 0,
      created_at: AT,
      updated_at: AT,
    },
    payouts: {
      id,
      merchant_id: 'm',
      reference: `r-${n}`,
      status,
      asset: 'USDT_TRON',
      network: 'tron',
      decimals: 6,
      to_address: 'T',
      amount: '1',
      fee_amount: '0',
      fee_charged: '0',
      review_reasons: '[]',
      created_at: AT,
      updated_at: AT,
    },
  };
  const row = rows[table];
  // An invoice's address is a deposit address (migration 0040 refuses one that is not).
  if (table === 'invoices') {
    database.sqlite
      .prepare(
        'insert into deposit_addresses (address, derivation_index, merchant_id, external_user_id, created_at) values (?, ?, ?, null, ?)',
      )
      .run(`a-${n}`, n, 'm', AT);
  }
  const cols = Object.keys(row);
  database.sqlite
    .prepare(`insert into ${table} (${cols.join(', ')}) values (${cols.map(() => '?').join(', ')})`)
    .run(...Object.values(row));
}

function ids(table: Table): string[] {
  return (database.sqlite.prepare(`select id from ${table}`).all() as { id: string }[]).map((r) => r.id);
}

/** What a GROUP BY says, as countByStatus reports it. */
function grouped(table: Table) {
  return (
    database.sqlite.prepare(`select status, count(*) as n from ${table} group by status order by status`).all() as {
      status: string;
      n: number;
    }[]
  ).map((r) => ({
    labels: { status: r.status },
    value: r.n,
  }));
}

async function expectCountsMatch(): Promise<void> {
  for (const t of TABLES) expect(await countByStatus(database.db, t), t).toEqual(grouped(t));
}

beforeAll(async () => {
  database = openSqlite(path.join(tempDir(), 'counts.db'));
  // Rows of these tables only: their merchants, addresses and invoices are not what is counted.
  database.sqlite.pragma('foreign_keys = OFF');
  const names = Object.keys(MIGRATIONS).sort();
  const before = names[names.indexOf('0039_status_counts') - 1] as string;
  const { error } = await new Migrator({
    db: database.db,
    provider: { getMigrations: async () => MIGRATIONS },
  }).migrateTo(before);
  if (error) throw error;
  for (const t of TABLES) for (let i = 0; i < 40; i++) insert(t);
});
afterAll(() => database.close());

describeSqliteOnly(
  "SQLite's migration 0039 on existing rows; the triggers on both engines are in test/db/triggers.test.ts",
)('row counts by status', () => {
  it('the migration counts the rows already there', async () => {
    await migrateToLatest(database.db);
    // The migration run leaves foreign keys enforced, as every connection has them.
    database.sqlite.pragma('foreign_keys = OFF');
    await expectCountsMatch();
  });

  it('the triggers keep them through inserts, status changes, other updates and deletes', async () => {
    for (let step = 0; step < 600; step++) {
      const t = pick(TABLES);
      const op = random();
      const id = pick(ids(t));
      if (op < 0.3 || id === undefined) insert(t);
      else if (op < 0.6)
        database.sqlite
          .prepare(`update ${t} set status = ?, updated_at = ? where id = ?`)
          .run(pick(STATUSES[t]), AT, id);
      else if (op < 0.7)
        database.sqlite.prepare(`update ${t} set status = status, updated_at = ? where id = ?`).run(AT, id);
      else if (op < 0.8)
        database.sqlite
          .prepare(`update ${t} set status = ? where status = ?`)
          .run(pick(STATUSES[t]), pick(STATUSES[t]));
      else if (op < 0.95) database.sqlite.prepare(`delete from ${t} where id = ?`).run(id);
      else database.sqlite.prepare(`delete from ${t} where status = ?`).run(pick(STATUSES[t]));
      if (step % 50 === 0) await expectCountsMatch();
    }
    await expectCountsMatch();
  });

  it('a status whose rows are all gone is not reported (as the GROUP BY did not)', async () => {
    database.sqlite.prepare(`delete from payouts`).run();
    insert('payouts', 'failed');
    expect(await countByStatus(database.db, 'payouts')).toEqual([{ labels: { status: 'failed' }, value: 1 }]);
    // A write that fails (CHECK) changes no count: the trigger's work goes with the statement.
    expect(() => database.sqlite.prepare(`update payouts set status = 'lost'`).run()).toThrow(/CHECK/);
    expect(() => insert('payouts', 'lost')).toThrow(/CHECK/);
    expect(await countByStatus(database.db, 'payouts')).toEqual([{ labels: { status: 'failed' }, value: 1 }]);
  });
});
