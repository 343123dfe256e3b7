import { sql, type Kysely } from 'kysely';

/**
 * The second factor can be neither guessed nor read (docs/adr/0067-second-factor-guard.md).
 * `owners.totp_failures` counts wrong second-factor codes given with the right password since the
 * account's last sign-in, in the database so that every replica counts the same attempts; every
 * tenth locks the second factor until `totp_locked_until`. `owner_recovery_codes` holds the
 * one-time recovery codes handed out at enrolment: SHA-256 of each code, never the code, and the
 * time it was used. TOTP secrets stay in their columns, sealed from now on (the app encrypts the
 * secrets written before this migration once it has its key).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('owners')
    .addColumn('totp_failures', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`totp_failures >= 0`),
    )
    .execute();
  await db.schema.alterTable('owners').addColumn('totp_locked_until', 'text').execute();
  await db.schema
    .createTable('owner_recovery_codes')
    .addColumn('owner_id', 'text', (c) => c.notNull().references('owners.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addPrimaryKeyConstraint('owner_recovery_codes_pk', ['owner_id', 'code_hash'])
    .execute();
}

/** Portable: the schema builder's statements above are PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('owner_recovery_codes').execute();
  await db.schema.alterTable('owners').dropColumn('totp_locked_until').execute();
  await db.schema.alterTable('owners').dropColumn('totp_failures').execute();
}
