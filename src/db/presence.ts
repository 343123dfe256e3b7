/**
 * Whether the configured database exists, for every command that must not create one (all but
 * init, migrate, demo, devnet and restore): a mistyped DATABASE_URL, or a command run from the
 * wrong folder, must never look like an empty instance with nothing to review.
 */
import { existsSync } from 'node:fs';
import { databaseLabel, type Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Db } from './database.js';
import { hasSchema } from './migrate.js';

export type DatabaseLocation = Pick<Config, 'database' | 'databaseFrom'>;

/** `database_not_found`, naming the resolved location and where it came from. */
export function databaseNotFound(where: DatabaseLocation, what: string): AppError {
  const from =
    where.databaseFrom === 'default'
      ? 'the default location: DATABASE_URL is set neither in the environment nor in a .env file here'
      : 'from DATABASE_URL';
  return new AppError(
    'database_not_found',
    `${what} at ${databaseLabel(where.database)} (${from}); set DATABASE_URL to the instance's database, or create a new one on purpose with paygate init or paygate migrate`,
  );
}

/**
 * SQLite: refuses a file that does not exist, before anything opens it (opening creates it, with
 * its -wal and -shm files). PostgreSQL: checked once connected (assertSchemaPresent).
 */
export function assertDatabaseFileExists(where: DatabaseLocation): void {
  if (where.database.engine === 'sqlite' && !existsSync(where.database.path))
    throw databaseNotFound(where, 'No database file');
}

/**
 * The opened database holds paygate's schema: none at all (an empty SQLite file, a PostgreSQL
 * database without the `kysely_migration` table, or no such PostgreSQL database: SQLSTATE 3D000 at
 * the first query) is `database_not_found`.
 */
export async function assertSchemaPresent(db: Db, where: DatabaseLocation): Promise<void> {
  let present: boolean;
  try {
    present = await hasSchema(db);
  } catch (e) {
    if ((e as { code?: unknown } | null)?.code === '3D000') throw databaseNotFound(where, 'No PostgreSQL database');
    throw e;
  }
  if (!present) throw databaseNotFound(where, 'No paygate database');
}
