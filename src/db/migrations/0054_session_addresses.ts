import type { Kysely } from 'kysely';

/**
 * The client address a cabinet session signed in from, shown to the owner in the list of the
 * account's sessions. Sessions from before this migration have none (null): the list says so.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('owner_sessions').addColumn('client_address', 'text').execute();
}

/** Portable: the schema builder's statement above is PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('owner_sessions').dropColumn('client_address').execute();
}
