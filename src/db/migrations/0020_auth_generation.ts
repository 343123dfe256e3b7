import { sql, type Kysely } from 'kysely';

/**
 * A counter that every change to merchants or API keys bumps (triggers, so every writer in every
 * process counts). The API's authentication cache compares it on each request: one tiny read, and
 * a revoked key or a disabled merchant is refused on the very next request.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('auth_generation')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('value', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into auth_generation (id, value) values (1, 0)`.execute(db);
  for (const table of ['merchants', 'api_keys']) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql
        .raw(
          `create trigger ${table}_${event}_auth_generation after ${event} on ${table} ` +
            `begin update auth_generation set value = value + 1 where id = 1; end`,
        )
        .execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['merchants', 'api_keys']) {
    for (const event of ['insert', 'update', 'delete'])
      await sql.raw(`drop trigger ${table}_${event}_auth_generation`).execute(db);
  }
  await db.schema.dropTable('auth_generation').execute();
}
