import type { Kysely } from 'kysely';

/** Reserved for the operations feature of this release; filled in by that feature. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
