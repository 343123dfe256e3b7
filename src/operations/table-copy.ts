/**
 * The table-by-table copy of `paygate migrate-to` (migrate-to.ts): the tables as PostgreSQL's
 * catalog lists them, parents before children (foreign keys), every row read from the SQLite file
 * and inserted in batches, then the identity sequences moved past the copied ids.
 *
 * Values go over as SQLite stores them: TEXT as the same string (money stays its base units),
 * INTEGER read as a bigint and sent as its decimal text (exact past 2^53), NULL as NULL. The
 * tables' own triggers (status counts, the invoice address checks) are switched off for the copy:
 * they derive rows that the copy brings over already, as they were.
 */
import type Sqlite from 'better-sqlite3';
import { sql } from 'kysely';
import type { Executor, Tx } from '../db/database.js';
import { AppError } from '../errors.js';

/** Kysely's migration bookkeeping: each database keeps its own, written by its migrations. */
const BOOKKEEPING = new Set(['kysely_migration', 'kysely_migration_lock']);

/** PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMETERS = 65_000;
export const DEFAULT_BATCH_ROWS = 1_000;

export interface TableShape {
  name: string;
  columns: string[];
}

/** The tables of the target, parents before children; checked against the source's tables. */
export async function tablesInKeyOrder(target: Executor, source: Sqlite.Database): Promise<TableShape[]> {
  const rows = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
    order by c.table_name, c.ordinal_position`.execute(target);
  const columns = new Map<string, string[]>();
  for (const r of rows.rows) {
    if (BOOKKEEPING.has(r.table_name)) continue;
    columns.set(r.table_name, [...(columns.get(r.table_name) ?? []), r.column_name]);
  }
  assertSameTables(columns, source);
  const keys = await sql<{ child: string; parent: string }>`
    select distinct cl.relname as child, pl.relname as parent from pg_constraint k
    join pg_class cl on cl.oid = k.conrelid
    join pg_class pl on pl.oid = k.confrelid
    where k.contype = 'f' and k.connamespace = current_schema()::regnamespace`.execute(target);
  return parentsFirst([...columns.keys()].sort(), keys.rows).map((name) => ({
    name,
    columns: columns.get(name) as string[],
  }));
}

/** The schemas must match table for table, column for column: both are at the same migration. */
function assertSameTables(target: Map<string, string[]>, source: Sqlite.Database): void {
  const names = (
    source
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'")
      .pluck()
      .all() as string[]
  ).filter((n) => !BOOKKEEPING.has(n));
  const differences: string[] = [];
  for (const n of names) if (!target.has(n)) differences.push(`table ${n} only in the SQLite database`);
  for (const [n, cols] of target) {
    if (!names.includes(n)) {
      differences.push(`table ${n} only in the PostgreSQL database`);
      continue;
    }
    const have = (source.prepare(`select name from pragma_table_info(?)`).pluck().all(n) as string[]).sort();
    const want = [...cols].sort();
    if (have.join() !== want.join())
      differences.push(`table ${n}: columns (${have.join(', ')}) against (${want.join(', ')})`);
  }
  if (differences.length > 0)
    throw new AppError('internal_error', `The two schemas differ: ${differences.join('; ')}; nothing was copied`);
}

/** Kahn's order over the foreign keys, by name among equals; a table's key to itself is no edge. */
function parentsFirst(tables: string[], keys: Array<{ child: string; parent: string }>): string[] {
  const parents = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const k of keys) if (k.child !== k.parent) parents.get(k.child)?.add(k.parent);
  const order: string[] = [];
  const placed = new Set<string>();
  while (order.length < tables.length) {
    const ready = tables.filter((t) => !placed.has(t) && [...(parents.get(t) ?? [])].every((p) => placed.has(p)));
    if (ready.length === 0)
      throw new AppError('internal_error', 'The foreign keys form a cycle; the tables have no copy order');
    for (const t of ready) {
      order.push(t);
      placed.add(t);
    }
  }
  return order;
}

/** Whether any table of the target holds a row (its migration bookkeeping aside); the first such. */
export async function firstTableWithRows(target: Executor): Promise<string | null> {
  const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(target);
  for (const { name } of tables.rows) {
    if (BOOKKEEPING.has(name)) continue;
    const r = await sql<{ some: boolean }>`select exists (select 1 from ${sql.table(name)}) as some`.execute(target);
    if (r.rows[0]?.some) return name;
  }
  return null;
}

type SqliteValue = string | bigint | number | Buffer | null;

function portable(v: SqliteValue): string | number | Buffer | null {
  return typeof v === 'bigint' ? v.toString() : v;
}

/**
 * Copies every row of `table` from the source into the target (inside the caller's transaction),
 * `batchRows` rows per INSERT; returns how many.
 */
export async function copyTable(
  source: Sqlite.Database,
  target: Tx,
  table: TableShape,
  batchRows: number,
  onBatch: (copied: number) => void = () => {},
): Promise<number> {
  const per = Math.max(1, Math.min(batchRows, Math.floor(MAX_PARAMETERS / table.columns.length)));
  const names = table.columns.map((c) => `"${c}"`).join(', ');
  const rows = source
    .prepare(`select ${names} from "${table.name}"`)
    .raw(true)
    .safeIntegers(true)
    .iterate() as IterableIterator<SqliteValue[]>;
  const into = sql`insert into ${sql.table(table.name)} (${sql.join(table.columns.map((c) => sql.ref(c)))}) values `;
  await sql`alter table ${sql.table(table.name)} disable trigger user`.execute(target);
  let copied = 0;
  let batch: SqliteValue[][] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const values = batch.map((r) => sql`(${sql.join(r.map(portable))})`);
    try {
      await sql`${into}${sql.join(values)}`.execute(target);
    } catch (e) {
      // A value SQLite keeps and PostgreSQL refuses (a NUL character in text, say): the whole copy
      // rolls back, and the message says where to look.
      throw new AppError(
        'internal_error',
        `PostgreSQL refused a row of ${table.name} (rows ${copied + 1} to ${copied + batch.length}): ${(e as Error).message}; nothing was kept in the target`,
      );
    }
    copied += batch.length;
    batch = [];
    onBatch(copied);
  };
  for (const row of rows) {
    batch.push(row);
    if (batch.length >= per) await flush();
  }
  await flush();
  await sql`alter table ${sql.table(table.name)} enable trigger user`.execute(target);
  return copied;
}

export interface SequenceReset {
  table: string;
  column: string;
  /** The value the next row gets. */
  next: number;
}

/**
 * Moves every identity sequence of the target past the ids copied, and past every id SQLite has
 * handed out (`sqlite_sequence`, its AUTOINCREMENT high-water mark): an id of a deleted row is
 * never given again, as SQLite never gives it again.
 */
export async function resetSequences(source: Sqlite.Database, target: Tx): Promise<SequenceReset[]> {
  const handedOut = new Map<string, number>();
  if (source.prepare("select 1 from sqlite_master where type = 'table' and name = 'sqlite_sequence'").get()) {
    for (const r of source.prepare('select name, seq from sqlite_sequence').all() as Array<{
      name: string;
      seq: number;
    }>)
      handedOut.set(r.name, Number(r.seq));
  }
  const identities = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema()
      and pg_get_serial_sequence(format('%I', table_name), column_name) is not null
    order by table_name, column_name`.execute(target);
  const out: SequenceReset[] = [];
  for (const { table_name: table, column_name: column } of identities.rows) {
    if (BOOKKEEPING.has(table)) continue;
    const floor = handedOut.get(table) ?? 0;
    const r = await sql<{ next: number }>`
      select setval(pg_get_serial_sequence(${`"${table}"`}, ${column}),
        greatest(coalesce(max(${sql.ref(column)}), 0), ${floor}) + 1, false) as next
      from ${sql.table(table)}`.execute(target);
    out.push({ table, column, next: Number(r.rows[0]?.next) });
  }
  return out;
}
