/**
 * Reports at scale: each report kind over the whole period of the database bench/scale.ts seeds
 * (a million invoices by default, reused between runs: bench/lib/seed.ts), with the ledger filled
 * the way the app books it (a credit per credited deposit; a reservation, its release and a debit
 * per confirmed payout; a reservation per payout still in review). For each report: rows, bytes,
 * wall time, CPU, and the peak RSS of the process that made it, against a report of an empty
 * period (what the process costs before any row): streamed in keyset batches, the peak must not
 * grow with the rows.
 *
 * Each report runs in a child process of its own (its peak RSS is its own), on a fresh copy of the
 * seeded database. First the copy goes through the upgrade an existing instance would: migration
 * 0050 undone by its own `down`, then applied again, timed (its indexes are built over the rows).
 *
 *   npx tsx bench/reports.ts [--invoices 1000000] [--formats csv,json]
 */
import Sqlite from 'better-sqlite3';
import { sql } from 'kysely';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadCatalog } from '../src/assets/catalog.js';
import { openDatabase, writeTx } from '../src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '../src/db/migrate.js';
import { openReport, REPORT_KINDS, type ReportFormat, type ReportKind } from '../src/reports/service.js';
import { statusMb } from './lib/child.js';
import { seededIn } from './lib/seed.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};

const WHOLE = { from: '2000-01-01', to: '2100-01-01' };
const EMPTY = { from: '1999-01-01', to: '1999-01-02' };

interface Measured {
  rows: number;
  bytes: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
}

/** The child: one report to a file, then its figures as one JSON line. */
async function child(): Promise<void> {
  const file = arg('db', '');
  const kind = arg('kind', 'invoices') as ReportKind;
  const format = arg('format', 'csv') as ReportFormat;
  const merchant = arg('merchant', '');
  const period = arg('period', 'whole') === 'whole' ? WHOLE : EMPTY;
  const out = arg('out', '/dev/null');
  const database = openDatabase(file);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let rows = 0;
  let bytes = 0;
  const report = await openReport(
    { db: database.scans, catalog: loadCatalog('devnet') },
    { kind, format, ...period, merchantId: merchant || null },
    { onProgress: (n) => (rows = n) },
  );
  const fd = openSync(out, 'w');
  for await (const chunk of report.chunks) {
    const buf = Buffer.from(chunk, 'utf8');
    writeSync(fd, buf);
    bytes += buf.length;
  }
  closeSync(fd);
  const cpu = process.cpuUsage(cpu0);
  const measured: Measured = {
    rows,
    bytes,
    seconds: (performance.now() - t0) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    // This process's own high-water mark: getrusage's maxRSS would carry the parent's over the
    // fork and exec that started it.
    peakRssMb: statusMb(process.pid, 'VmHWM'),
  };
  await database.close();
  process.stdout.write(`${JSON.stringify(measured)}\n`);
}

/** Ledger entries as the app books them, per merchant's USDT account, in time order (a fixture). */
function fillLedger(file: string): number {
  const db = new Sqlite(file);
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  if ((db.prepare('select count(*) as n from ledger_entries').get() as { n: number }).n > 0) {
    db.close();
    return 0;
  }
  const insert = db.prepare(
    `insert into ledger_entries (merchant_id, asset, seq, kind, amount, balance_after, reserved_after, payout_id, source_ref, memo, actor, created_at)
     values (?, 'USDT_TRON', ?, ?, ?, ?, ?, ?, ?, ?, 'system', ?)`,
  );
  const accounts = new Map<string, { seq: number; balance: bigint; reserved: bigint }>();
  const book = (
    merchant: string,
    kind: 'credit' | 'debit' | 'reserve' | 'release',
    amount: bigint,
    at: string,
    ref: { payout?: string; source?: string },
  ) => {
    const a = accounts.get(merchant) ?? { seq: 0, balance: 0n, reserved: 0n };
    if (kind === 'credit') a.balance += amount;
    if (kind === 'debit') a.balance -= amount;
    if (kind === 'reserve') a.reserved += amount;
    if (kind === 'release') a.reserved -= amount;
    a.seq += 1;
    accounts.set(merchant, a);
    insert.run(
      merchant,
      a.seq,
      kind,
      amount.toString(),
      a.balance.toString(),
      a.reserved.toString(),
      ref.payout ?? null,
      ref.source ?? null,
      ref.source ? `invoice` : null,
      at,
    );
  };
  // Credited deposits and payouts, merged in time order; read on a connection of their own (the
  // writer cannot run inserts while a query of its own is being iterated).
  const reader = new Sqlite(file, { readonly: true });
  const credits = reader
    .prepare(
      `select merchant_id, tx_hash, log_index, amount, credited_at as at from deposits where credited_at is not null order by credited_at, id`,
    )
    .iterate() as Iterable<{ merchant_id: string; tx_hash: string; log_index: number; amount: string; at: string }>;
  const payouts = db
    .prepare(
      `select id, merchant_id, status, amount, fee_amount, created_at as at from payouts order by created_at, id`,
    )
    .all() as { id: string; merchant_id: string; status: string; amount: string; fee_amount: string; at: string }[];
  let p = 0;
  let n = 0;
  const settlePayout = (row: (typeof payouts)[number]) => {
    const total = BigInt(row.amount) + BigInt(row.fee_amount);
    const a = accounts.get(row.merchant_id);
    if (!a || a.balance - a.reserved < total) return;
    book(row.merchant_id, 'reserve', total, row.at, { payout: row.id });
    n += 1;
    if (row.status === 'confirmed') {
      book(row.merchant_id, 'release', total, row.at, { payout: row.id });
      book(row.merchant_id, 'debit', total, row.at, { payout: row.id });
      n += 2;
    }
  };
  db.exec('begin');
  for (const d of credits) {
    while (p < payouts.length && payouts[p]!.at <= d.at) settlePayout(payouts[p++]!);
    book(d.merchant_id, 'credit', BigInt(d.amount), d.at, { source: `deposit:${d.tx_hash}:${d.log_index}` });
    n += 1;
    if (n % 100_000 === 0) {
      db.exec('commit');
      db.exec('begin');
    }
  }
  while (p < payouts.length) settlePayout(payouts[p++]!);
  db.exec('commit');
  reader.close();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return n;
}

function runChild(args: Record<string, string>): Measured {
  const flat = Object.entries(args).flatMap(([k, v]) => [`--${k}`, v]);
  const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', ...flat], {
    cwd: path.resolve(import.meta.dirname, '..'),
    encoding: 'utf8',
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as Measured;
}

async function main(): Promise<void> {
  const n = Number(arg('invoices', '1000000'));
  const formats = arg('formats', 'csv,json').split(',') as ReportFormat[];
  const s = await seededIn(path.join(tmpdir(), `paygate-scale-${n}`), { invoices: n, permanent: n / 10 });
  console.log(
    `${n.toLocaleString('en-US')} invoices: ${s.reused ? 'seeded earlier' : `seeded in ${s.seconds.toFixed(0)} s`}; a fresh copy in ${s.file}`,
  );
  const database = openDatabase(s.file);
  await migrateToLatest(database.db);
  // The upgrade an existing instance goes through: migration 0050 undone on the copy (its own
  // `down`), then applied again, timed (its indexes are built over the million rows).
  await writeTx(database.db, async (trx) => {
    await MIGRATIONS['0050_accounting']!.down!(trx as never);
    await sql`delete from kysely_migration where name = '0050_accounting'`.execute(trx);
  });
  const m0 = performance.now();
  const migrated = await migrateToLatest(database.db);
  console.log(
    `upgrade: migrations ${migrated.applied.join(', ') || '(none)'} applied in ${((performance.now() - m0) / 1000).toFixed(1)} s`,
  );
  await database.close();
  const l0 = performance.now();
  const entries = fillLedger(s.file);
  console.log(
    `ledger: ${entries.toLocaleString('en-US')} entries booked in ${((performance.now() - l0) / 1000).toFixed(0)} s`,
  );
  console.log(`database file: ${(statSync(s.file).size / 2 ** 20).toFixed(0)} MB`);

  const out = path.join(path.dirname(s.file), 'report.out');
  const base = runChild({ db: s.file, kind: 'invoices', format: 'csv', period: 'empty', out });
  console.log(`\nbaseline (the invoices report of an empty period): peak RSS ${base.peakRssMb.toFixed(0)} MB\n`);
  const rows: string[][] = [];
  const cases: Array<{ kind: ReportKind; format: ReportFormat; merchant?: string }> = [];
  for (const format of formats) for (const kind of REPORT_KINDS) cases.push({ kind, format });
  cases.push({ kind: 'invoices', format: 'csv', merchant: s.merchantId });
  for (const c of cases) {
    const m = runChild({
      db: s.file,
      kind: c.kind,
      format: c.format,
      period: 'whole',
      out,
      merchant: c.merchant ?? '',
    });
    rows.push([
      `${c.kind}${c.merchant ? ' (one merchant)' : ''}`,
      c.format,
      m.rows.toLocaleString('en-US'),
      `${(m.bytes / 2 ** 20).toFixed(0)} MB`,
      `${m.seconds.toFixed(1)} s`,
      `${m.cpuSeconds.toFixed(1)} s`,
      `${Math.round(m.rows / m.seconds).toLocaleString('en-US')}/s`,
      `${m.peakRssMb.toFixed(0)} MB`,
      `${(m.peakRssMb - base.peakRssMb).toFixed(0)} MB`,
    ]);
  }
  if (existsSync(out)) rmSync(out);
  const head = ['report', 'format', 'rows', 'size', 'wall', 'CPU', 'rows/s', 'peak RSS', 'over baseline'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(head));
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  for (const r of rows) console.log(line(r));
}

if (process.argv.includes('--child')) await child();
else await main();
