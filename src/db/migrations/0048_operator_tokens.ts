import { sql, type Kysely } from 'kysely';

/**
 * Operator tokens of the console `/admin/v1`: `op_<token_id>_<secret>`, issued from the CLI only.
 * As with API keys, only an argon2id hash of the secret is kept; a revoked token stays listed
 * (who had access, until when) and is refused from its revocation on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('operator_tokens')
    .addColumn('token_id', 'text', (c) => c.primaryKey().check(sql`length(token_id) = 16`))
    .addColumn('name', 'text', (c) => c.notNull().check(sql`length(name) between 1 and 100`))
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('revoked_by', 'text')
    .execute();
}

/** Portable: the schema builder's statements above are PostgreSQL's step too. */
export const postgres = up;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('operator_tokens').execute();
}
