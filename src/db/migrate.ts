/**
 * Versioned migrations, applied by `paygate migrate` and at `serve` start. They are imported
 * statically (not read from a folder at run time) so the built dist/ and the TypeScript sources
 * behave the same. A feature adds its migration file here under the next number; never edit one
 * that has shipped.
 *
 * Both engines share the list and the names recorded in `kysely_migration` (docs/database.md,
 * "Writing a migration for both engines"). On PostgreSQL, one baseline (postgres-baseline.ts)
 * creates the schema the SQLite migrations up to POSTGRES_BASELINE build, and those are recorded
 * as applied; every later migration (AFTER_BASELINE) runs its `postgres` step there.
 */
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { performance } from 'node:perf_hooks';
import { AppError } from '../errors.js';
import { engineOf, WRITER_CACHE_KB, writeTx, type Db, type Executor, type Tx } from './database.js';
import { createPostgresBaseline } from './postgres-baseline.js';
import { tableExists } from './portable.js';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_wallet_addresses.js';
import * as m0003 from './migrations/0003_assets.js';
import * as m0004 from './migrations/0004_fee_schedules.js';
import * as m0005 from './migrations/0005_invoices.js';
import * as m0010 from './migrations/0010_ledger.js';
import * as m0011 from './migrations/0011_whitelist.js';
import * as m0012 from './migrations/0012_payouts.js';
import * as m0013 from './migrations/0013_ledger_source.js';
import * as m0020 from './migrations/0020_auth_generation.js';
import * as m0030 from './migrations/0030_workers.js';
import * as m0031 from './migrations/0031_watcher.js';
import * as m0032 from './migrations/0032_sweeper.js';
import * as m0033 from './migrations/0033_payout_worker.js';
import * as m0034 from './migrations/0034_webhooks.js';
import * as m0036 from './migrations/0036_performance.js';
import * as m0037 from './migrations/0037_unsettled_deposits.js';
import * as m0038 from './migrations/0038_scheduled_indexes.js';
import * as m0039 from './migrations/0039_status_counts.js';
import * as m0040 from './migrations/0040_invoice_address_index.js';
import * as m0041 from './migrations/0041_deposit_addresses_by_index.js';
import * as m0042 from './migrations/0042_deposit_address_keys.js';
import * as m0043 from './migrations/0043_drop_auth_generation.js';
import * as m0044 from './migrations/0044_chain_identity.js';
import * as m0045 from './migrations/0045_payout_holds.js';
import * as m0046 from './migrations/0046_watcher_stop.js';
import * as m0047 from './migrations/0047_derivation_gaps.js';
import * as m0048 from './migrations/0048_operator_tokens.js';
import * as m0049 from './migrations/0049_cabinet.js';
import * as m0050 from './migrations/0050_accounting.js';
import * as m0051 from './migrations/0051_two_merchant_switches.js';
import * as m0052 from './migrations/0052_operator_token_terms.js';
import * as m0053 from './migrations/0053_page_invoices.js';
import * as m0054 from './migrations/0054_session_addresses.js';
import * as m0055 from './migrations/0055_second_factor_guard.js';
import * as m0056 from './migrations/0056_hot_wallet_transfers.js';
import * as m0057 from './migrations/0057_gap_watch_window.js';
import * as m0058 from './migrations/0058_hot_wallet_acknowledgements.js';
import * as m0059 from './migrations/0059_receipt_emails.js';
import * as m0060 from './migrations/0060_exceptions.js';
import * as m0062 from './migrations/0062_refunds.js';
import * as m0065 from './migrations/0065_payout_hold_transfer.js';
import * as m0067 from './migrations/0067_member_roles.js';
import * as m0068 from './migrations/0068_prefix_search.js';
import * as m0069 from './migrations/0069_mail.js';
import * as m0071 from './migrations/0071_hot_wallet_acts.js';

/** The last migration that PostgreSQL's baseline covers: its schema is SQLite's after this one. */
export const POSTGRES_BASELINE = '0047_derivation_gaps';

/**
 * A migration after the baseline: `up` is SQLite's step and `postgres` PostgreSQL's, both
 * required, so a migration without its PostgreSQL step does not compile. A migration written with
 * kysely's schema builder in portable terms says so: `export const postgres = up`.
 */
export interface EngineMigration extends Migration {
  postgres: (db: Kysely<unknown>) => Promise<void>;
}

/**
 * SQLite's history up to POSTGRES_BASELINE, in SQLite-only steps: PostgreSQL never runs them, its
 * baseline creates the schema they build. Closed: a new migration goes in AFTER_BASELINE.
 */
const UP_TO_BASELINE: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_wallet_addresses': m0002,
  '0003_assets': m0003,
  '0004_fee_schedules': m0004,
  '0005_invoices': m0005,
  '0010_ledger': m0010,
  '0011_whitelist': m0011,
  '0012_payouts': m0012,
  '0013_ledger_source': m0013,
  '0020_auth_generation': m0020,
  '0030_workers': m0030,
  '0031_watcher': m0031,
  '0032_sweeper': m0032,
  '0033_payout_worker': m0033,
  '0034_webhooks': m0034,
  '0036_performance': m0036,
  '0037_unsettled_deposits': m0037,
  '0038_scheduled_indexes': m0038,
  '0039_status_counts': m0039,
  '0040_invoice_address_index': m0040,
  '0041_deposit_addresses_by_index': m0041,
  '0042_deposit_address_keys': m0042,
  '0043_drop_auth_generation': m0043,
  '0044_chain_identity': m0044,
  '0045_payout_holds': m0045,
  '0046_watcher_stop': m0046,
  '0047_derivation_gaps': m0047,
};

/** Every migration after the baseline, with its step for each engine. */
export const AFTER_BASELINE: Record<string, EngineMigration> = {
  '0048_operator_tokens': m0048,
  '0049_cabinet': m0049,
  '0050_accounting': m0050,
  '0051_two_merchant_switches': m0051,
  '0052_operator_token_terms': m0052,
  '0053_page_invoices': m0053,
  '0054_session_addresses': m0054,
  '0055_second_factor_guard': m0055,
  '0056_hot_wallet_transfers': m0056,
  '0057_gap_watch_window': m0057,
  '0058_hot_wallet_acknowledgements': m0058,
  '0059_receipt_emails': m0059,
  '0060_exceptions': m0060,
  '0062_refunds': m0062,
  '0065_payout_hold_transfer': m0065,
  '0067_member_roles': m0067,
  '0068_prefix_search': m0068,
  '0069_mail': m0069,
  '0071_hot_wallet_acts': m0071,
};

/** Every migration by the name recorded in `kysely_migration` on both engines. */
export const MIGRATIONS: Record<string, Migration> = { ...UP_TO_BASELINE, ...AFTER_BASELINE };

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export interface MigrationReport {
  applied: string[];
  current: string | null;
}

/** Refuses the executed migrations when this code does not know one of them (a newer paygate's). */
function refuseNewer(executed: readonly string[]): void {
  const unknown = executed.filter((name) => !Object.hasOwn(MIGRATIONS, name));
  if (unknown.length > 0)
    throw new AppError(
      'invalid_state',
      `The database was migrated by a newer paygate (migration ${unknown.join(', ')}); run that version, or restore a backup taken before the upgrade (docs/operations/setup.md, "Upgrades")`,
    );
}

async function executedMigrations(db: Executor): Promise<string[] | null> {
  if (!(await tableExists(db, 'kysely_migration'))) return null;
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

/**
 * The migration log (kysely's table, made here when absent) read inside the run's transaction:
 * what is applied, and which of `names` are pending. A newer paygate's database is refused.
 */
async function readLog(trx: Tx, names: readonly string[]): Promise<{ executed: string[]; pending: string[] }> {
  await sql`create table if not exists kysely_migration (name varchar(255) not null primary key, timestamp varchar(255) not null)`.execute(
    trx,
  );
  const executed = (await executedMigrations(trx)) ?? [];
  refuseNewer(executed);
  const done = new Set(executed);
  return { executed, pending: names.filter((name) => !done.has(name)) };
}

/** Records a migration as applied, in the run's transaction (kysely's Migrator reads the same log). */
async function recordApplied(trx: Tx, name: string): Promise<void> {
  await sql`insert into kysely_migration (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(trx);
}

/**
 * The run's transaction, for a migration that opens one of its own (0039, 0040, 0042): its
 * `transaction().execute(fn)` runs `fn` inside the run's transaction. Methods are bound to the
 * transaction itself (kysely's classes keep their state in private fields).
 */
function nestable(trx: Tx): Kysely<unknown> {
  const nested: Kysely<unknown> = new Proxy(trx, {
    get(target, prop) {
      if (prop === 'transaction')
        return () => ({ execute: <T>(fn: (inner: Kysely<unknown>) => Promise<T>) => fn(nested) });
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as unknown as Kysely<unknown>;
  return nested;
}

/** Rows breaking a foreign key, by child table and parent table ("invoices → deposit_addresses"). */
async function brokenKeys(db: Executor): Promise<Map<string, number>> {
  const rows = await sql<{
    child: string;
    parent: string;
    n: number;
  }>`select "table" as child, parent, count(*) as n from pragma_foreign_key_check group by 1, 2`.execute(db);
  return new Map(rows.rows.map((r) => [`${r.child} → ${r.parent}`, Number(r.n)]));
}

/**
 * Throws (and the run rolls back) when the run broke a foreign key: more rows break one after it
 * than before. Only its own: rows a database held against its keys before are not the run's.
 */
function assertNoKeyBroken(before: Map<string, number>, after: Map<string, number>): void {
  const broken = [...after]
    .filter(([key, n]) => n > (before.get(key) ?? 0))
    .map(([key, n]) => `${n - (before.get(key) ?? 0)} row(s) of ${key}`);
  if (broken.length > 0)
    throw new AppError(
      'invalid_state',
      `The migration would leave ${broken.join(', ')} without the row their foreign key names; nothing was changed`,
    );
}

/** How long a run waits for the write lock held by another process's migration run. */
export const MIGRATION_LOCK_WAIT_MS = 10 * 60_000;

/**
 * Runs `run` (the whole migration transaction) again while it finds the database locked. Why: the
 * driver waits DEFAULT_BUSY's 10 s for the write lock, and another process's run (a second serve
 * started together, `paygate migrate` beside a starting serve) holds it for the whole upgrade,
 * 23 s for 0040 alone on 1.5 million invoices: the second process failed with "database is locked".
 * Nothing is applied by a run that fails (one transaction), so running it again is safe.
 */
async function waitingForOtherMigrations<T>(run: () => Promise<T>): Promise<T> {
  const deadline = performance.now() + MIGRATION_LOCK_WAIT_MS;
  for (;;) {
    try {
      return await run();
    } catch (e) {
      const code = (e as { code?: unknown })?.code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || performance.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export async function migrateToLatest(db: Db): Promise<MigrationReport> {
  return migrateUpTo(db, null);
}

/** PostgreSQL's lock of a migration run (pg_advisory_xact_lock): two processes migrating take turns. */
const MIGRATION_LOCK = 0x7061_7967;

/**
 * The PostgreSQL run: one transaction (PostgreSQL's DDL is transactional) under an advisory lock,
 * READ COMMITTED so that a run that waited for the lock reads what the other run recorded.
 */
async function migratePostgres(db: Db, names: string[]): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    const { executed, pending } = await readLog(trx, names);
    const covered = pending.filter((name) => name <= POSTGRES_BASELINE);
    if (covered.length > 0) {
      if (executed.length > 0)
        throw new AppError(
          'invalid_state',
          `Migration(s) ${covered.join(', ')} are missing from a PostgreSQL database that has others: its history does not match this paygate`,
        );
      await createPostgresBaseline(trx as unknown as Kysely<unknown>);
    }
    for (const name of pending) {
      const m = AFTER_BASELINE[name];
      // The baseline built what the migrations up to it build; a later one outside AFTER_BASELINE
      // would be recorded without its step (schema-parity.test.ts keeps the lists right).
      if (m === undefined && name > POSTGRES_BASELINE)
        throw new Error(`Migration ${name} comes after the PostgreSQL baseline but is not in AFTER_BASELINE`);
      if (m !== undefined) await m.postgres(nestable(trx));
      await recordApplied(trx, name);
    }
    return pending;
  });
}

/**
 * migrateToLatest up to and including `upTo` (null: every migration). Tests build a database at an
 * earlier version with it, through the same single transaction as a real run.
 */
export async function migrateUpTo(db: Db, upTo: string | null): Promise<MigrationReport> {
  const names = Object.keys(MIGRATIONS)
    .sort()
    .filter((name) => upTo === null || name <= upTo);
  if (engineOf(db) === 'postgres') {
    if (upTo !== null && upTo < POSTGRES_BASELINE)
      throw new Error(`A PostgreSQL database starts at ${POSTGRES_BASELINE}: it has no earlier schema`);
    return { applied: await migratePostgres(db, names), current: names.at(-1) ?? null };
  }
  // A migration that rewrites a table (0040) journals every page it changes: in a temporary file,
  // not in memory as the writer's savepoints do (database.ts), ~220 MB a million invoices.
  // Its backfills walk whole tables: the 16 MB page cache they were measured with (23 s for 0040's
  // on 1.5M invoices), not the server's 8 MB.
  await sql`pragma temp_store = default`.execute(db);
  await sql.raw(`pragma cache_size = -${2 * WRITER_CACHE_KB}`).execute(db);
  // A migration that changes a table's constraints rebuilds it (0042): SQLite's documented way
  // turns foreign key enforcement off first (it cannot be turned off inside a transaction), and
  // checks inside the transaction that no key was broken (below). Every paygate connection runs
  // with it on again afterwards (database.ts).
  await sql`pragma foreign_keys = off`.execute(db);
  let applied: string[];
  try {
    // Every pending migration and its record in ONE write transaction (SQLite's DDL is
    // transactional). kysely's SQLite migrator runs each statement on its own and records a
    // migration after it: a process killed half-way left tables without their migration's record,
    // and every later run stopped at "table … already exists". Read inside the transaction, the
    // list of what is pending is also the one another process left behind: two processes
    // migrating at once (two serves started together) apply each migration once.
    applied = await waitingForOtherMigrations(() =>
      writeTx(db, async (trx) => {
        const { executed, pending } = await readLog(trx, names);
        const last = executed.at(-1);
        const early = pending.filter((name) => last !== undefined && name < last);
        if (early.length > 0) {
          throw new AppError(
            'invalid_state',
            `Migration(s) ${early.join(', ')} sort before ${last}, which is applied already: this database's history does not match this paygate`,
          );
        }
        const before = pending.length > 0 ? await brokenKeys(trx) : new Map<string, number>();
        for (const name of pending) {
          await (MIGRATIONS[name] as Migration).up(nestable(trx));
          await recordApplied(trx, name);
        }
        if (pending.length > 0) assertNoKeyBroken(before, await brokenKeys(trx));
        return pending;
      }),
    );
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
    await sql`pragma temp_store = memory`.execute(db);
    await sql.raw(`pragma cache_size = -${WRITER_CACHE_KB}`).execute(db);
  }
  return { applied, current: names.at(-1) ?? null };
}

/** Whether paygate's schema is there at all: at least one migration recorded. */
export async function hasSchema(db: Executor): Promise<boolean> {
  return ((await executedMigrations(db)) ?? []).length > 0;
}

/**
 * For routine commands, after presence.ts found the schema: a database that needs migrations (code
 * newer than the file, i.e. an upgrade) is refused, so that only `paygate migrate` changes the
 * schema a running serve may be using; so is one a newer paygate migrated (the code was rolled
 * back, the database was not restored): a routine command must not write to a schema it does not know.
 */
export async function assertMigrated(db: Db): Promise<void> {
  const executed = (await executedMigrations(db)) ?? [];
  refuseNewer(executed);
  const all = await new Migrator({ db, provider }).getMigrations();
  const pending = all.filter((m) => m.executedAt === undefined);
  if (pending.length > 0) {
    throw new AppError(
      'invalid_state',
      `The database needs ${pending.length} migration(s) (${pending.map((m) => m.name).join(', ')}): run \`paygate migrate\``,
    );
  }
}
