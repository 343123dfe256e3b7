/**
 * The two engines' schemas cannot drift: a SQLite file and a PostgreSQL database migrated to the
 * latest version have the same tables, columns (in order, with their nullability and kind of
 * type), primary keys, unique keys (constraints and unique indexes, partial or not), foreign keys,
 * other indexes by name and triggers by name. PostgreSQL's baseline is written by hand
 * (src/db/postgres-baseline.ts), so this is what holds it to SQLite's migrations; a later migration
 * whose PostgreSQL step builds something else than its SQLite step fails here too. Every migration
 * file is in the list, and every one after the baseline in the part that requires both engines'
 * steps. It runs on every test run: PostgreSQL must be reachable (helpers/database.ts).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, openSqlite, type Database, type SqliteDatabase } from '../../src/db/database.js';
import { AFTER_BASELINE, MIGRATIONS, migrateToLatest, POSTGRES_BASELINE } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/app.js';
import { createPostgresDatabase, type TestPostgres } from '../helpers/database.js';

interface Catalog {
  /** table → "name type null|not null" in column order. */
  columns: Record<string, string[]>;
  primaryKeys: string[];
  /** "table(columns)" plus " where …" for a partial one (the condition itself is not compared). */
  uniqueKeys: string[];
  foreignKeys: string[];
  /** Named, non-unique indexes: "name on table(columns)". */
  indexes: string[];
  triggers: string[];
}

/** SQLite's declared types and PostgreSQL's, by the kind the code reads back. */
function kind(type: string): string {
  const t = type.toLowerCase();
  if (/int/.test(t)) return 'integer';
  if (/text|char/.test(t)) return 'text';
  return t;
}

async function sqliteCatalog(d: SqliteDatabase): Promise<Catalog> {
  const q = <T>(text: string, ...params: unknown[]) => d.sqlite.prepare(text).all(...params) as T[];
  const tables = q<{ name: string }>(
    "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
  ).map((t) => t.name);
  const c: Catalog = { columns: {}, primaryKeys: [], uniqueKeys: [], foreignKeys: [], indexes: [], triggers: [] };
  for (const t of tables) {
    const cols = q<{ name: string; type: string; notnull: number; pk: number }>(
      `select * from pragma_table_info(?)`,
      t,
    );
    c.columns[t] = cols.map((col) => `${col.name} ${kind(col.type)} ${col.notnull || col.pk ? 'not null' : 'null'}`);
    const pk = cols.filter((col) => col.pk > 0).sort((a, b) => a.pk - b.pk);
    if (pk.length > 0) c.primaryKeys.push(`${t}(${pk.map((col) => col.name).join(', ')})`);
    for (const idx of q<{ name: string; unique: number; origin: string; partial: number }>(
      'select * from pragma_index_list(?)',
      t,
    )) {
      if (idx.origin === 'pk') continue;
      const on = q<{ name: string }>('select name from pragma_index_info(?) order by seqno', idx.name)
        .map((col) => col.name)
        .join(', ');
      if (idx.unique) c.uniqueKeys.push(`${t}(${on})${idx.partial ? ' where …' : ''}`);
      else c.indexes.push(`${idx.name} on ${t}(${on})`);
    }
    for (const fk of q<{ from: string; table: string; to: string; on_delete: string }>(
      'select * from pragma_foreign_key_list(?)',
      t,
    ))
      c.foreignKeys.push(`${t}(${fk.from}) → ${fk.table}(${fk.to}) on delete ${fk.on_delete.toLowerCase()}`);
  }
  c.triggers = q<{ name: string }>("select name from sqlite_master where type = 'trigger'").map((r) => r.name);
  return sorted(c);
}

async function postgresCatalog(d: Database): Promise<Catalog> {
  const q = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(d.db)).rows;
  const c: Catalog = { columns: {}, primaryKeys: [], uniqueKeys: [], foreignKeys: [], indexes: [], triggers: [] };
  const cols = await q<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(sql`
    select table_name, column_name, data_type, is_nullable from information_schema.columns
    where table_schema = current_schema() order by table_name, ordinal_position`);
  for (const col of cols)
    (c.columns[col.table_name] ??= []).push(
      `${col.column_name} ${kind(col.data_type)} ${col.is_nullable === 'YES' ? 'null' : 'not null'}`,
    );
  const indexes = await q<{
    tbl: string;
    name: string;
    uniq: boolean;
    pk: boolean;
    partial: boolean;
    cols: string;
  }>(sql`
    select t.relname as tbl, i.relname as name, x.indisunique as uniq, x.indisprimary as pk,
           x.indpred is not null as partial,
           (select string_agg(a.attname, ', ' order by k.ord) from unnest(x.indkey) with ordinality as k(attnum, ord)
              join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum) as cols
    from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace where n.nspname = current_schema()`);
  for (const i of indexes) {
    if (i.pk) c.primaryKeys.push(`${i.tbl}(${i.cols})`);
    else if (i.uniq) c.uniqueKeys.push(`${i.tbl}(${i.cols})${i.partial ? ' where …' : ''}`);
    else c.indexes.push(`${i.name} on ${i.tbl}(${i.cols})`);
  }
  const fks = await q<{ tbl: string; cols: string; ref: string; ref_cols: string; del: string }>(sql`
    select t.relname as tbl, r.relname as ref, f.confdeltype as del,
      (select string_agg(a.attname, ', ' order by k.ord) from unnest(f.conkey) with ordinality as k(attnum, ord)
         join pg_attribute a on a.attrelid = f.conrelid and a.attnum = k.attnum) as cols,
      (select string_agg(a.attname, ', ' order by k.ord) from unnest(f.confkey) with ordinality as k(attnum, ord)
         join pg_attribute a on a.attrelid = f.confrelid and a.attnum = k.attnum) as ref_cols
    from pg_constraint f join pg_class t on t.oid = f.conrelid join pg_class r on r.oid = f.confrelid
    join pg_namespace n on n.oid = t.relnamespace where f.contype = 'f' and n.nspname = current_schema()`);
  const onDelete: Record<string, string> = {
    a: 'no action',
    r: 'restrict',
    c: 'cascade',
    n: 'set null',
    d: 'set default',
  };
  for (const fk of fks)
    c.foreignKeys.push(`${fk.tbl}(${fk.cols}) → ${fk.ref}(${fk.ref_cols}) on delete ${onDelete[fk.del]}`);
  c.triggers = (
    await q<{ name: string }>(sql`
      select tg.tgname as name from pg_trigger tg join pg_class t on t.oid = tg.tgrelid
      join pg_namespace n on n.oid = t.relnamespace where not tg.tgisinternal and n.nspname = current_schema()`)
  ).map((r) => r.name);
  return sorted(c);
}

function sorted(c: Catalog): Catalog {
  return {
    columns: Object.fromEntries(Object.entries(c.columns).sort(([a], [b]) => (a < b ? -1 : 1))),
    primaryKeys: c.primaryKeys.sort(),
    uniqueKeys: c.uniqueKeys.sort(),
    foreignKeys: c.foreignKeys.sort(),
    indexes: c.indexes.sort(),
    triggers: c.triggers.sort(),
  };
}

describe('the SQLite and PostgreSQL schemas', () => {
  let lite: SqliteDatabase;
  let pgDb: Database;
  let server: TestPostgres;
  let a: Catalog;
  let b: Catalog;

  beforeAll(async () => {
    lite = openSqlite(path.join(tempDir(), 'parity.db'));
    await migrateToLatest(lite.db);
    server = await createPostgresDatabase();
    pgDb = openDatabase(server.url);
    await migrateToLatest(pgDb.db);
    [a, b] = [await sqliteCatalog(lite), await postgresCatalog(pgDb)];
  });
  afterAll(async () => {
    await lite?.close();
    await pgDb?.close();
    await server?.drop();
  });

  it('have the same tables and columns', () => {
    expect(Object.keys(b.columns)).toEqual(Object.keys(a.columns));
    expect(b.columns).toEqual(a.columns);
  });

  it('have the same primary, unique and foreign keys', () => {
    expect(b.primaryKeys).toEqual(a.primaryKeys);
    expect(b.uniqueKeys).toEqual(a.uniqueKeys);
    expect(b.foreignKeys).toEqual(a.foreignKeys);
  });

  it('have the same indexes and triggers', () => {
    expect(b.indexes).toEqual(a.indexes);
    expect(b.triggers).toEqual(a.triggers);
  });

  it('record the same migrations', async () => {
    const names = async (d: Database) =>
      (
        await d.db
          .selectFrom('kysely_migration' as never)
          .select('name' as never)
          .orderBy('name' as never)
          .execute()
      ).map((r) => (r as { name: string }).name);
    expect(await names(pgDb)).toEqual(await names(lite));
  });
});

describe('the migration list', () => {
  const files = readdirSync(fileURLToPath(new URL('../../src/db/migrations', import.meta.url)))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -'.ts'.length))
    .sort();

  it('names every migration file under its file name', () => {
    expect(Object.keys(MIGRATIONS).sort()).toEqual(files);
  });

  it('gives every migration after the baseline a PostgreSQL step, and none up to it', () => {
    const later = files.filter((name) => name > POSTGRES_BASELINE);
    expect(later.length).toBeGreaterThan(0);
    expect(Object.keys(AFTER_BASELINE).sort()).toEqual(later);
    for (const name of later) expect(typeof AFTER_BASELINE[name]?.postgres).toBe('function');
  });
});
