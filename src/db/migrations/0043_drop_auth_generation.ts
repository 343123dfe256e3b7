import { sql, type Kysely } from 'kysely';

/**
 * The authentication generation goes: every request now reads its key row and merchant, so no
 * counter has to tell the API that keys or merchants changed, and no write has to bump one.
 */
const TABLES = ['merchants', 'api_keys'];
const EVENTS = ['insert', 'update', 'delete'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    for (const event of EVENTS) await sql.raw(`drop trigger if exists ${table}_${event}_auth_generation`).execute(db);
  }
  await db.schema.dropTable('auth_generation').ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('auth_generation')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('value', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into auth_generation (id, value) values (1, 0)`.execute(db);
  for (const table of TABLES) {
    for (const event of EVENTS) {
      await sql
        .raw(
          `create trigger ${table}_${event}_auth_generation after ${event} on ${table} begin update auth_generation set value = value + 1 where id = 1; end`,
        )
        .execute(db);
    }
  }
}
