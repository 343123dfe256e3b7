import type { Kysely } from 'kysely';

/**
 * A restore's gap watches its first indexes only (`watched_to_index`, both ends of the watched
 * part included): the addresses a payment can reach are the ones handed out since the backup,
 * which are the gap's first. Gaps recorded before had every address derived and stored: their
 * watched part is the whole gap.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('derivation_gaps').addColumn('watched_to_index', 'integer').execute();
  await (db as Kysely<{ derivation_gaps: { to_index: number; watched_to_index: number | null } }>)
    .updateTable('derivation_gaps')
    .set((eb) => ({ watched_to_index: eb.ref('to_index') }))
    .execute();
}

/** Portable: the schema builder's statements above are PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('derivation_gaps').dropColumn('watched_to_index').execute();
}
