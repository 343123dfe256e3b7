/**
 * `PAYGATE_MIGRATE_TO_URL=<postgres url> paygate migrate-to` (docs/operations/postgresql.md, "Moving to PostgreSQL"): a SQLite
 * instance with real history (the demo's tour: an invoice paid on the devnet, confirmed and
 * settled, a payout sent and confirmed, webhooks delivered, an owner signed in to the cabinet; then
 * an unpaid invoice, one paid in part, a user's permanent address, a rejected payout) is moved to a
 * new PostgreSQL database. Every row of every table arrives identical, balances too, and an app
 * opened on PostgreSQL answers as the SQLite one did and creates new records (the sequences
 * follow the copied ids). The refusals leave both databases untouched.
 */
import Sqlite from 'better-sqlite3';
import { sql } from 'kysely';
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { openDatabase, openSqlite } from '../../src/db/database.js';
import { startDemo } from '../../src/demo/index.js';
import { runTour } from '../../src/demo/tour.js';
import { balances } from '../../src/ledger/service.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { backupDatabase } from '../../src/restore/backup.js';
import { rejectPayout } from '../../src/payouts/operator.js';
import { WorkerLease } from '../../src/runtime/lease.js';
import { startTestApp, tempDir } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { createPostgresDatabase, postgresUrl, type TestPostgres } from '../helpers/database.js';
import { api } from '../helpers/http.js';

/** Every row of every table as canonical text (each value as text or null), sorted, by table. */
async function everyRow(url: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  if (url.startsWith('postgres')) {
    const database = openDatabase(url);
    try {
      const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely%'`.execute(
        database.db,
      );
      for (const { name } of tables.rows) {
        const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(database.db);
        out[name] = rows.rows.map((r) => canonical(r)).sort();
      }
    } finally {
      await database.close();
    }
    return out;
  }
  const db = new Sqlite(url, { readonly: true });
  try {
    const tables = db
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite%' and name not like 'kysely%'",
      )
      .pluck()
      .all() as string[];
    for (const name of tables)
      out[name] = (db.prepare(`select * from "${name}"`).safeIntegers(true).all() as Record<string, unknown>[])
        .map((r) => canonical(r))
        .sort();
  } finally {
    db.close();
  }
  return out;
}

/** A row by column name (so both engines' column orders compare), every value as text. */
function canonical(row: Record<string, unknown>): string {
  const names = Object.keys(row).sort();
  return JSON.stringify(names.map((n) => [n, row[n] === null ? null : String(row[n])]));
}

const MIGRATE_ENV = { TRON_NETWORK: 'devnet', LOG_LEVEL: 'silent' };

describe('paygate migrate-to', () => {
  let source: string;
  let target: TestPostgres;
  let shopKey: string;
  let shopId: string;
  let gamesKey: string;
  const invoices: string[] = [];
  const before: Record<string, unknown> = {};

  beforeAll(async () => {
    const demo = await startDemo({ port: 0, blockTimeMs: 100, logLevel: 'silent' });
    try {
      const steps = await runTour(demo, () => {});
      expect(steps.filter((s) => !s.ok)).toEqual([]);
      shopKey = demo.info.api_key;
      shopId = demo.info.merchant_id;
      gamesKey = demo.info.merchants.find((m) => m.address_mode === 'per_user')?.api_key as string;
      const v1 = demo.info.api_url.replace(/\/v1$/, '');
      invoices.push(demo.info.invoice.invoice_id);
      // An invoice left unpaid, one paid in part (seen), a user's address, a rejected payout.
      const unpaid = await api(v1, '/v1/invoices', {
        key: shopKey,
        body: { order_id: 'unpaid-1', asset: 'USDT_TRON', amount: '7.25', expires_in: 3600 },
      });
      expect(unpaid.status).toBe(201);
      invoices.push(unpaid.body.invoice_id);
      const part = await api(v1, '/v1/invoices', {
        key: gamesKey,
        body: { order_id: 'part-1', asset: 'USDT_TRON', amount: '20', expires_in: 3600, external_user_id: 'user-7' },
      });
      expect(part.status).toBe(201);
      invoices.push(part.body.invoice_id);
      demo.devnet.control.pay({ to: part.body.address, asset: 'USDT_TRON', amount: 5_000_000n, mine: true });
      const address = await api(v1, '/v1/addresses', {
        key: gamesKey,
        body: { external_user_id: 'user-8', network: 'tron' },
      });
      expect(address.status).toBe(200);
      const payout = await api(v1, '/v1/payouts', {
        key: shopKey,
        body: { reference: 'to-reject', asset: 'USDT_TRON', to_address: demo.info.payout_address, amount: '1.5' },
      });
      expect(payout.status).toBe(202);
      await rejectPayout(demo.app.services.db, systemClock, 'test', payout.body.payout_id, 'not this one');
      // The partial payment seen by the watcher before the instance stops.
      await vi.waitFor(
        async () =>
          expect((await api(v1, `/v1/invoices/${part.body.invoice_id}`, { key: gamesKey })).body.status).toBe('seen'),
        { timeout: 30_000, interval: 100 },
      );
      await demo.app.stop();
      // The operator's step before moving: a backup, which is also the SQLite instance moved here.
      source = path.join(tempDir(), 'paygate.db');
      await backupDatabase(demo.info.database, source);
    } finally {
      await demo.stop();
    }
    // What the SQLite instance answers (an app on it as serve opens it, no background work).
    const t = await startTestApp({ env: { DATABASE_URL: source }, workers: false, cabinet: false, admin: false });
    try {
      for (const id of invoices) {
        const key = id === invoices[2] ? gamesKey : shopKey;
        before[id] = (await api(t.url, `/v1/invoices/${id}`, { key })).body;
      }
    } finally {
      await t.close();
    }
    target = await createPostgresDatabase();
  }, 180_000);
  afterAll(() => target?.drop());

  it('copies every row of every table, identical, with balances and addresses, and reports it', async () => {
    const r = await runCli(['migrate-to', '--json'], {
      ...MIGRATE_ENV,
      PAYGATE_MIGRATE_TO_URL: target.url,
      DATABASE_URL: source,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.verified).toBe(true);
    expect(r.json.target).toBe(target.url);
    const rowsOf = (t: string) => r.json.tables.find((x: { table: string }) => x.table === t)?.rows;
    for (const t of ['merchants', 'api_keys', 'invoices', 'deposits', 'payouts', 'ledger_entries', 'events'])
      expect(rowsOf(t), t).toBeGreaterThan(0);
    for (const t of ['webhook_deliveries', 'deposit_addresses', 'owners', 'audit_log', 'wallet'])
      expect(rowsOf(t), t).toBeGreaterThan(0);
    // Parents come before their children.
    const order = r.json.tables.map((x: { table: string }) => x.table);
    expect(order.indexOf('merchants')).toBeLessThan(order.indexOf('invoices'));
    expect(order.indexOf('deposit_addresses')).toBeLessThan(order.indexOf('invoices'));
    expect(order.indexOf('invoices')).toBeLessThan(order.indexOf('deposits'));
    expect(order.indexOf('events')).toBeLessThan(order.indexOf('webhook_deliveries'));
    expect(r.json.merchants).toBe(2);

    const [sqliteRows, postgresRows] = await Promise.all([everyRow(source), everyRow(target.url)]);
    expect(Object.keys(postgresRows).sort()).toEqual(Object.keys(sqliteRows).sort());
    for (const table of Object.keys(sqliteRows)) expect(postgresRows[table], table).toEqual(sqliteRows[table]);
    const statuses = (sqliteRows.invoices ?? []).map(
      (row) => (JSON.parse(row) as string[][]).find((c) => c[0] === 'status')?.[1],
    );
    expect(new Set(statuses)).toEqual(new Set(['settled', 'created', 'seen']));

    const from = openSqlite(source);
    const to = openDatabase(target.url);
    try {
      const merchants = await from.db.selectFrom('merchants').select('id').execute();
      for (const { id } of merchants) expect(await balances(to.db, id), id).toEqual(await balances(from.db, id));
      // 100 opening + 12.375 credited for the tour's invoice + 19.7901 for its page invoice (19.99
      // less the 1 % fee) − 5.5 paid out (the rejected payout released what it held).
      const shop = await balances(to.db, shopId);
      expect(shop.find((b) => b.asset === 'USDT_TRON')?.balance).toBe(126_665_100n);
      const addresses = (d: typeof to) =>
        d.db.selectFrom('deposit_addresses').select(['address', 'derivation_index']).orderBy('address').execute();
      expect(await addresses(to)).toEqual(await addresses(from));
    } finally {
      await from.close();
      await to.close();
    }
  });

  it('leaves an instance that serve opens on PostgreSQL: the same answers, new records after the copied ids', async () => {
    const t = await startTestApp({ env: { DATABASE_URL: target.url }, workers: false, cabinet: false, admin: false });
    try {
      for (const id of invoices) {
        const key = id === invoices[2] ? gamesKey : shopKey;
        const r = await api(t.url, `/v1/invoices/${id}`, { key });
        expect(r.status).toBe(200);
        expect(r.body, id).toEqual(before[id]);
      }
      const created = await api(t.url, '/v1/invoices', {
        key: shopKey,
        body: { order_id: 'after-the-move', asset: 'USDT_TRON', amount: '3', expires_in: 3600 },
      });
      expect(created.status, created.text).toBe(201);
      // The tables' triggers run again after the copy: the status counts follow the new invoice.
      const counts = await t.app.services.db
        .selectFrom('status_counts')
        .select('n')
        .where('table_name', '=', 'invoices')
        .where('status', '=', 'created')
        .executeTakeFirst();
      const createdRows = await t.app.services.db
        .selectFrom('invoices')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('status', '=', 'created')
        .executeTakeFirstOrThrow();
      expect(Number(counts?.n)).toBe(Number(createdRows.n));
      expect(Number(createdRows.n)).toBe(2);
      expect((await api(t.url, `/v1/invoices/${created.body.invoice_id}`, { key: shopKey })).body.order_id).toBe(
        'after-the-move',
      );
      // A ledger entry and its audit record: two more identity sequences past the copied ids.
      const { db, clock, catalog } = t.app.services;
      await creditMerchant(db, clock, 'test', catalog, shopId, { asset: 'USDT_TRON', amount: '1', memo: 'after' });
      const shop = await balances(db, shopId);
      expect(shop.find((b) => b.asset === 'USDT_TRON')?.balance).toBe(127_665_100n);
    } finally {
      await t.close();
    }
  });

  it('takes the target from --url-file, and prints a summary for people, no progress off a terminal', async () => {
    const other = await createPostgresDatabase();
    const urlFile = path.join(tempDir(), 'postgres-url');
    writeFileSync(urlFile, `${other.url}\n`, { mode: 0o600 });
    try {
      const r = await runCli(['migrate-to', '--url-file', urlFile], { ...MIGRATE_ENV, DATABASE_URL: source });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^merchants\s+2$/m);
      expect(r.stdout).toMatch(/^verified\s+true$/m);
      expect(r.stdout).toMatch(/^balances\s+\d+ balances of 2 merchants equal$/m);
      expect(r.stdout).toMatch(/events\.seq next \d+/);
      expect(r.stdout).toContain('Set DATABASE_URL=<the PostgreSQL URL>');
      expect(r.stderr).toBe('');
    } finally {
      await other.drop();
    }
  });

  it('keeps nothing of a copy that fails, and copies once the row is mended', async () => {
    const copy = path.join(tempDir(), 'nul.db');
    copyFileSync(source, copy);
    const raw = new Sqlite(copy);
    // Text SQLite keeps and PostgreSQL refuses: a NUL character in a memo.
    raw.prepare("update ledger_entries set memo = 'a' || char(0) || 'b' where id = 1").run();
    raw.close();
    const empty = await createPostgresDatabase();
    try {
      const failed = await runCli(['migrate-to', '--json'], {
        ...MIGRATE_ENV,
        PAYGATE_MIGRATE_TO_URL: empty.url,
        DATABASE_URL: copy,
      });
      expect(failed.code).toBe(2);
      expect(failed.json.error.code).toBe('internal_error');
      expect(failed.json.error.message).toMatch(/refused a row of ledger_entries .*nothing was kept in the target/);
      expect(await everyRow(empty.url)).toEqual(
        Object.fromEntries(Object.keys(await everyRow(copy)).map((t) => [t, []])),
      );
      const mend = new Sqlite(copy);
      mend.prepare("update ledger_entries set memo = 'ab' where id = 1").run();
      mend.close();
      const again = await runCli(['migrate-to', '--json'], {
        ...MIGRATE_ENV,
        PAYGATE_MIGRATE_TO_URL: empty.url,
        DATABASE_URL: copy,
      });
      expect(again.code, again.stdout).toBe(0);
      expect(await everyRow(empty.url)).toEqual(await everyRow(copy));
    } finally {
      await empty.drop();
    }
  });

  it('refuses a target that holds data, and names it', async () => {
    const r = await runCli(['migrate-to', '--json'], {
      ...MIGRATE_ENV,
      PAYGATE_MIGRATE_TO_URL: target.url,
      DATABASE_URL: source,
    });
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('invalid_state');
    expect(r.json.error.message).toMatch(/is not empty \(table \w+ has rows\)/);
  });

  it.each([
    ['mysql://db.internal/paygate', /must be a PostgreSQL URL/],
    ['postgres://127.0.0.1:5432', /must name the database/],
    ['postgres://postgres@127.0.0.1:5432/paygate_no_such_database', /Cannot use the target database .*does not exist/],
  ])('refuses the target %s', async (url, message) => {
    const r = await runCli(['migrate-to', '--json'], {
      ...MIGRATE_ENV,
      PAYGATE_MIGRATE_TO_URL: url,
      DATABASE_URL: source,
    });
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('invalid_argument');
    expect(r.json.error.message).toMatch(message);
  });

  it('refuses the URL as an argument (ps and shell history show it), naming the two ways, and writes nothing', async () => {
    const empty = await createPostgresDatabase();
    const urlFile = path.join(tempDir(), 'postgres-url');
    writeFileSync(urlFile, empty.url);
    try {
      const cases: Array<[string[], Record<string, string>, RegExp]> = [
        [[empty.url], {}, /does not take the PostgreSQL URL as an argument.*PAYGATE_MIGRATE_TO_URL.*--url-file/],
        [[empty.url], { PAYGATE_MIGRATE_TO_URL: empty.url }, /as an argument/],
        [[], {}, /No target PostgreSQL database: set PAYGATE_MIGRATE_TO_URL, or pass --url-file/],
        [['--url-file', urlFile], { PAYGATE_MIGRATE_TO_URL: empty.url }, /either PAYGATE_MIGRATE_TO_URL or --url-file/],
        [['--url-file', path.join(tempDir(), 'missing')], {}, /--url-file: cannot read/],
      ];
      for (const [args, env, message] of cases) {
        const r = await runCli(['migrate-to', ...args, '--json'], { ...MIGRATE_ENV, ...env, DATABASE_URL: source });
        expect(r.code, r.stdout).toBe(1);
        expect(r.json.error.code).toBe('invalid_argument');
        expect(r.json.error.message).toMatch(message);
      }
      expect(await tableCount(empty.url)).toBe(0);
    } finally {
      await empty.drop();
    }
  });

  it('refuses a PostgreSQL DATABASE_URL as the source', async () => {
    const empty = await createPostgresDatabase();
    try {
      const r = await runCli(['migrate-to', '--json'], {
        ...MIGRATE_ENV,
        PAYGATE_MIGRATE_TO_URL: empty.url,
        DATABASE_URL: postgresUrl('x'),
      });
      expect(r.code).toBe(1);
      expect(r.json.error.message).toMatch(/moves a SQLite database/);
    } finally {
      await empty.drop();
    }
  });

  it('refuses a source whose worker lease is live, or that another process holds open, writing nothing', async () => {
    const copy = path.join(tempDir(), 'leased.db');
    copyFileSync(source, copy);
    const empty = await createPostgresDatabase();
    try {
      const leased = openSqlite(copy);
      try {
        expect(
          await new WorkerLease(leased.db, systemClock, { ttlMs: 60_000, holder: 'replica-a' }).acquireOrRenew(),
        ).toBe(true);
      } finally {
        await leased.close();
      }
      const refused = await runCli(['migrate-to', '--json'], {
        ...MIGRATE_ENV,
        PAYGATE_MIGRATE_TO_URL: empty.url,
        DATABASE_URL: copy,
      });
      expect(refused.code).toBe(1);
      expect(refused.json.error.code).toBe('invalid_state');
      expect(refused.json.error.message).toMatch(/worker lease is held by replica-a/);

      // As an idle replica or a shell holds it: a connection that has read (a shared lock in WAL mode).
      const open = new Sqlite(source);
      open.prepare('select count(*) from merchants').get();
      try {
        const busy = await runCli(['migrate-to', '--json'], {
          ...MIGRATE_ENV,
          PAYGATE_MIGRATE_TO_URL: empty.url,
          DATABASE_URL: source,
        });
        expect(busy.code).toBe(1);
        expect(busy.json.error.code).toBe('invalid_state');
        expect(busy.json.error.message).toMatch(/in use by another process/);
      } finally {
        open.close();
      }
      // Nothing was written to the target: not even its schema.
      expect(await tableCount(empty.url)).toBe(0);
    } finally {
      await empty.drop();
    }
  });
});

/** Tables in the target's schema: 0 when nothing was written to it, not even the schema. */
async function tableCount(url: string): Promise<number> {
  const d = openDatabase(url);
  try {
    const tables = await sql<{ n: number }>`select count(*) as n from information_schema.tables
      where table_schema = current_schema()`.execute(d.db);
    return Number(tables.rows[0]?.n);
  } finally {
    await d.close();
  }
}
