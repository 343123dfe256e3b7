import { sql, type Kysely } from 'kysely';

/**
 * Row counts by status of invoices, deposits and payouts, kept by triggers in the transaction of
 * every insert, status change and delete, so that /metrics reads a few rows instead of counting
 * the tables at every scrape: three GROUP BYs would hold the event loop longer as the tables grow
 * (docs/adr/0036-queries-stay-index-searches.md). A status whose rows are all gone keeps its row
 * with n = 0.
 */
const TABLES = ['invoices', 'deposits', 'payouts'] as const;

export async function up(outer: Kysely<unknown>): Promise<void> {
  // One transaction: kysely's SQLite migrator runs none, and a `paygate migrate` beside a running
  // serve could otherwise see a trigger count a row before the backfill, whose insert would then
  // fail on the row it made, leaving a half-applied migration no later run can finish.
  await outer.transaction().execute(async (db) => {
    await sql`create table status_counts (
      table_name text not null,
      status text not null,
      n integer not null,
      primary key (table_name, status)
    ) without rowid`.execute(db);
    for (const t of TABLES) {
      const name = sql.lit(t);
      const bump = (status: 'new' | 'old', by: 1 | -1) =>
        by === 1
          ? sql`insert into status_counts (table_name, status, n) values (${name}, ${sql.raw(status)}.status, 1)
                  on conflict (table_name, status) do update set n = n + 1;`
          : sql`update status_counts set n = n - 1 where table_name = ${name} and status = ${sql.raw(status)}.status;`;
      await sql`create trigger ${sql.raw(`${t}_count_insert`)} after insert on ${sql.table(t)} begin ${bump('new', 1)} end`.execute(
        db,
      );
      await sql`create trigger ${sql.raw(`${t}_count_status`)} after update of status on ${sql.table(t)} when old.status is not new.status
        begin ${bump('old', -1)} ${bump('new', 1)} end`.execute(db);
      await sql`create trigger ${sql.raw(`${t}_count_delete`)} after delete on ${sql.table(t)} begin ${bump('old', -1)} end`.execute(
        db,
      );
      await sql`insert into status_counts (table_name, status, n) select ${name}, status, count(*) from ${sql.table(t)} group by status`.execute(
        db,
      );
    }
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES) {
    for (const k of ['insert', 'status', 'delete']) await sql`drop trigger ${sql.raw(`${t}_count_${k}`)}`.execute(db);
  }
  await sql`drop table status_counts`.execute(db);
}
