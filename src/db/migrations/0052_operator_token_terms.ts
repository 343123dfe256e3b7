import { sql, type Kysely } from 'kysely';

/**
 * Terms of operator tokens, as API keys have (0050): `read_only` (1: every GET of the console and
 * nothing else), `expires_at` (the token is refused from then on; null: no expiry) and
 * `allowed_networks` (JSON array of CIDRs the console may be called from; null: any client
 * address). Tokens issued before keep full access, no expiry and any address.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('operator_tokens')
    .addColumn('read_only', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`read_only in (0, 1)`),
    )
    .execute();
  for (const column of ['expires_at', 'allowed_networks'])
    await db.schema.alterTable('operator_tokens').addColumn(column, 'text').execute();
}

/** Portable: the schema builder's statements above are PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['allowed_networks', 'expires_at', 'read_only'])
    await db.schema.alterTable('operator_tokens').dropColumn(column).execute();
}
