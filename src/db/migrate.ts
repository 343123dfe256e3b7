/**
 * Versioned migrations, applied by `paygate migrate` and at `serve` start. They are imported
 * statically (not read from a folder at run time) so the built dist/ and the TypeScript sources
 * behave the same. A feature adds its migration file here under the next number; never edit one
 * that has shipped.
 */
import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import { AppError } from '../errors.js';
import { WRITER_CACHE_KB, type Db } from './database.js';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_wallet_addresses.js';
import * as m0003 from './migrations/0003_assets.js';
import * as m0004 from './migrations/0004_fee_schedules.js';
import * as m0005 from './migrations/0005_invoices.js';
import * as m0010 from './migrations/0010_ledger.js';
import * as m0011 from './migrations/0011_whitelist.js';
import * as m0012 from './migrations/0012_payouts.js';
import * as m0013 from './migrations/0013_ledger_source.js';
import * as m0020 from './migrations/0020_auth_generation.js';
import * as m0030 from './migrations/0030_workers.js';
import * as m0031 from './migrations/0031_watcher.js';
import * as m0032 from './migrations/0032_sweeper.js';
import * as m0033 from './migrations/0033_payout_worker.js';
import * as m0034 from './migrations/0034_webhooks.js';
import * as m0036 from './migrations/0036_performance.js';
import * as m0037 from './migrations/0037_unsettled_deposits.js';
import * as m0038 from './migrations/0038_scheduled_indexes.js';
import * as m0039 from './migrations/0039_status_counts.js';
import * as m0040 from './migrations/0040_invoice_address_index.js';

export const MIGRATIONS: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_wallet_addresses': m0002,
  '0003_assets': m0003,
  '0004_fee_schedules': m0004,
  '0005_invoices': m0005,
  '0010_ledger': m0010,
  '0011_whitelist': m0011,
  '0012_payouts': m0012,
  '0013_ledger_source': m0013,
  '0020_auth_generation': m0020,
  '0030_workers': m0030,
  '0031_watcher': m0031,
  '0032_sweeper': m0032,
  '0033_payout_worker': m0033,
  '0034_webhooks': m0034,
  '0036_performance': m0036,
  '0037_unsettled_deposits': m0037,
  '0038_scheduled_indexes': m0038,
  '0039_status_counts': m0039,
  '0040_invoice_address_index': m0040,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export interface MigrationReport {
  applied: string[];
  current: string | null;
}

export async function migrateToLatest(db: Db): Promise<MigrationReport> {
  const migrator = new Migrator({ db, provider });
  // A migration that rewrites a table (0040) journals every page it changes: in a temporary file,
  // not in memory as the writer's savepoints do (database.ts), ~220 MB a million invoices.
  // Its backfills walk whole tables: the 16 MB page cache they were measured with (23 s for 0040's
  // on 1.5M invoices), not the server's 8 MB.
  await sql`pragma temp_store = default`.execute(db);
  await sql.raw(`pragma cache_size = -${2 * WRITER_CACHE_KB}`).execute(db);
  let outcome: Awaited<ReturnType<Migrator['migrateToLatest']>>;
  try {
    outcome = await migrator.migrateToLatest();
  } finally {
    await sql`pragma temp_store = memory`.execute(db);
    await sql.raw(`pragma cache_size = -${WRITER_CACHE_KB}`).execute(db);
  }
  const { error, results } = outcome;
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  const all = await migrator.getMigrations();
  const done = all.filter((m) => m.executedAt !== undefined).map((m) => m.name);
  return { applied, current: done.at(-1) ?? null };
}

/**
 * For routine commands: a new database gets its schema; one that already has a schema but needs
 * migrations (code newer than the file, i.e. an upgrade) is refused, so that only `paygate
 * migrate` changes the schema a running serve may be using.
 */
export async function assertMigrated(db: Db): Promise<void> {
  const all = await new Migrator({ db, provider }).getMigrations();
  const pending = all.filter((m) => m.executedAt === undefined);
  if (pending.length === all.length) {
    await migrateToLatest(db);
    return;
  }
  if (pending.length > 0) {
    throw new AppError(
      'invalid_state',
      `The database needs ${pending.length} migration(s) (${pending.map((m) => m.name).join(', ')}): run \`paygate migrate\``,
    );
  }
}
