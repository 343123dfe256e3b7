import { sql, type Kysely } from 'kysely';

/**
 * Two switches for a merchant (docs/adr/0061-two-switches-and-session-terms.md). `enabled` stays
 * the operator's switch (`merchant enable|disable`, the console) and `owner_enabled` is the owner's
 * (the cabinet's `PATCH {enabled}`); the merchant accepts requests only when both are 1. A
 * merchant disabled before this migration keeps its stop as the operator's: only the operator's
 * action could turn it off, and keeping it off is the safe reading. The owner's switch starts on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('merchants')
    .addColumn('owner_enabled', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(1)
        .check(sql`owner_enabled in (0, 1)`),
    )
    .execute();
}

/** Portable: the schema builder's statement above is PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('merchants').dropColumn('owner_enabled').execute();
}
