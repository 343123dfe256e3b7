import { sql, type Kysely } from 'kysely';

/**
 * An account holds each of its merchants in a role: `owner` (everything the cabinet offers) or
 * `viewer` (reads, reports and exports). Every grant made before roles existed is an owner's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('owner_merchants')
    .addColumn('role', 'text', (c) =>
      c
        .notNull()
        .defaultTo('owner')
        .check(sql`role in ('owner', 'viewer')`),
    )
    .execute();
}

/** Portable: the schema builder's statement above is PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('owner_merchants').dropColumn('role').execute();
}
