/**
 * `paygate migrate-to <postgres url>` (docs/operations/postgresql.md, "Moving to PostgreSQL"): moves a SQLite
 * instance to an empty PostgreSQL database, once, with every `serve` stopped.
 *
 * Refused before anything is written: a target URL that is not PostgreSQL or cannot be reached, a
 * target holding any row, a source in use (a live worker lease, or any process with the file open)
 * or not at this version's schema. Then the target is migrated to the same schema version, and
 * every table is copied in one transaction on the target, parents before children, in batches,
 * with ids as they are and money as its TEXT (table-copy.ts); the identity sequences are moved
 * past the copied ids. Before that transaction commits the copy is checked: the row count of
 * every table and every merchant's ledger balances (balance, reserved, available per asset) equal
 * on both sides. Anything that fails rolls the whole copy back: the target is left empty (its
 * schema migrated), and the command can run again.
 *
 * The source is only read. While the copy runs it is held in a write transaction, so nothing can
 * change it under the copy; it stays as it was, a way back until the new database has proved itself.
 */
import { sql } from 'kysely';
import { databaseLabel, isPostgresUrl } from '../config.js';
import { openSqlite, type Executor } from '../db/database.js';
import { assertMigrated, migrateToLatest } from '../db/migrate.js';
import { assertDatabaseFileExists, assertSchemaPresent, type DatabaseLocation } from '../db/presence.js';
import { openPostgres, type PostgresDatabase } from '../db/postgres.js';
import { AppError } from '../errors.js';
import { balances, type Balance } from '../ledger/service.js';
import { assertNoLiveLease } from '../runtime/lease.js';
import { assertNotInUse } from '../restore/backup.js';
import {
  copyTable,
  DEFAULT_BATCH_ROWS,
  firstTableWithRows,
  resetSequences,
  tablesInKeyOrder,
  type SequenceReset,
} from './table-copy.js';

export interface MigrateToOptions {
  /** Rows per INSERT (at most what PostgreSQL's 65,535 parameters allow). */
  batchRows?: number;
  /** After each batch: the table, rows copied of it so far, and its rows in all. */
  onProgress?: (table: string, copied: number, total: number) => void;
}

export interface TableCount {
  table: string;
  rows: number;
}

export interface MigrateToResult {
  /** The SQLite file moved (it is left as it was). */
  source: string;
  /** The PostgreSQL database, without its password. */
  target: string;
  /** The newest migration of both. */
  schema: string;
  /** Every table in copy order, with its rows (equal on both sides). */
  tables: TableCount[];
  rows: number;
  /** Merchants whose ledger balances were compared, and their (merchant, asset) balances. */
  merchants: number;
  balances: number;
  sequences: SequenceReset[];
  verified: true;
}

/** The target URL, checked before any connection: a PostgreSQL URL naming its database. */
function targetUrl(url: string): string {
  if (!isPostgresUrl(url))
    throw new AppError(
      'invalid_argument',
      'The target must be a PostgreSQL URL: postgres://user:password@host:5432/database',
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('invalid_argument', 'The target is not a valid postgres:// URL');
  }
  if (parsed.pathname.replace(/^\//, '') === '')
    throw new AppError('invalid_argument', 'The target URL must name the database (postgres://user@host:5432/paygate)');
  return url;
}

async function reach(target: PostgresDatabase, label: string): Promise<void> {
  try {
    await sql`select 1`.execute(target.db);
  } catch (e) {
    throw new AppError('invalid_argument', `Cannot use the target database ${label}: ${(e as Error).message}`);
  }
}

async function migrationNames(db: Executor): Promise<string[]> {
  const r = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return r.rows.map((x) => x.name);
}

const balanceText = (b: Balance) => `${b.asset} ${b.balance}/${b.reserved}/${b.available}`;

export async function migrateToPostgres(
  where: DatabaseLocation,
  url: string,
  now: Date,
  opts: MigrateToOptions = {},
): Promise<MigrateToResult> {
  const source = where.database;
  if (source.engine !== 'sqlite')
    throw new AppError(
      'invalid_argument',
      'DATABASE_URL names a PostgreSQL database already; migrate-to moves a SQLite database (DATABASE_URL) to the PostgreSQL database it is given',
    );
  const label = databaseLabel({ engine: 'postgres', url: targetUrl(url), poolSize: 1 });
  assertDatabaseFileExists(where);
  // A live lease, or any other process with the file open (an idle replica, a command): what it
  // wrote after the copy would be in neither database.
  assertNotInUse(source.path, now);

  const from = openSqlite(source.path);
  const to = openPostgres(url, { poolSize: 2 });
  let frozen = false;
  try {
    await assertSchemaPresent(from.db, where);
    await assertMigrated(from.db);
    await reach(to, label);
    const occupied = await firstTableWithRows(to.db);
    if (occupied)
      throw new AppError(
        'invalid_state',
        `The target database ${label} is not empty (table ${occupied} has rows): migrate-to fills a new, empty database only`,
      );
    await migrateToLatest(to.db);
    const schema = await migrationNames(from.db);
    const targetSchema = await migrationNames(to.db);
    if (schema.join() !== targetSchema.join())
      throw new AppError(
        'internal_error',
        `The two databases are at different schema versions (${schema.at(-1)} against ${targetSchema.at(-1)}); nothing was copied`,
      );

    // No other process can write to the source from here to the end of the copy.
    from.sqlite.exec('BEGIN IMMEDIATE');
    frozen = true;
    await assertNoLiveLease(from.db, { now: () => now });
    const raw = from.sqlite;
    const tables = await tablesInKeyOrder(to.db, raw);
    const merchantIds = raw.prepare('select id from merchants order by id').pluck().all() as string[];
    const counted = new Map<string, number>();
    for (const t of tables) counted.set(t.name, Number(raw.prepare(`select count(*) from "${t.name}"`).pluck().get()));
    const sourceBalances = new Map<string, string[]>();
    for (const id of merchantIds) sourceBalances.set(id, (await balances(from.db, id)).map(balanceText));

    const sequences = await to.db.transaction().execute(async (trx) => {
      for (const t of tables) {
        const total = counted.get(t.name) ?? 0;
        await copyTable(raw, trx, t, opts.batchRows ?? DEFAULT_BATCH_ROWS, (n) => opts.onProgress?.(t.name, n, total));
      }
      const reset = await resetSequences(raw, trx);
      await verify(trx, tables, counted, sourceBalances);
      return reset;
    });
    const tableCounts = tables.map((t) => ({ table: t.name, rows: counted.get(t.name) ?? 0 }));
    return {
      source: source.path,
      target: label,
      schema: schema.at(-1) as string,
      tables: tableCounts,
      rows: tableCounts.reduce((n, t) => n + t.rows, 0),
      merchants: merchantIds.length,
      balances: [...sourceBalances.values()].reduce((n, b) => n + b.length, 0),
      sequences,
      verified: true,
    };
  } finally {
    if (frozen) from.sqlite.exec('ROLLBACK');
    await from.close();
    await to.close();
  }
}

/** Inside the copy's transaction: every count and every balance as the source has it, or nothing commits. */
async function verify(
  trx: Executor,
  tables: Array<{ name: string }>,
  counted: Map<string, number>,
  sourceBalances: Map<string, string[]>,
): Promise<void> {
  const problems: string[] = [];
  for (const t of tables) {
    const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(t.name)}`.execute(trx);
    const copied = Number(r.rows[0]?.n ?? 0);
    if (copied !== counted.get(t.name)) problems.push(`${t.name}: ${copied} rows copied of ${counted.get(t.name)}`);
  }
  for (const [id, want] of sourceBalances) {
    const have = (await balances(trx, id)).map(balanceText);
    if (have.join() !== want.join())
      problems.push(`merchant ${id}: balances ${have.join(', ')} against ${want.join(', ')}`);
  }
  if (problems.length > 0)
    throw new AppError(
      'internal_error',
      `The copy does not match the source (${problems.join('; ')}); nothing was kept in the target`,
    );
}
