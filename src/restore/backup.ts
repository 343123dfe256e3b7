/**
 * `paygate backup <file>` and `paygate restore <file>` (docs/operations/backups.md, "Backups").
 *
 * Backup is online: SQLite's backup API copies the pages of a consistent snapshot while serve
 * keeps writing (WAL readers never block writers). When another process writes during a
 * multi-step copy SQLite restarts it; after one restart the rest is copied in a single step (one
 * read transaction), so a busy server cannot starve the backup. The copy is written as
 * `<file>.partial` (mode 0600 from its creation: it holds every merchant's data), checked with
 * `PRAGMA integrity_check`, switched to a self-contained rollback journal, and only then linked to
 * `<file>`, which is never overwritten.
 *
 * Restore refuses a database in use: a worker lease that has not lapsed, or any open connection
 * (an exclusive lock attempt fails while another process, even an idle serve, has the file open).
 * It checks the backup's integrity and schema first, keeps the replaced database beside it as
 * `<db>.before-restore-<time>`, and never leaves a half-written database in place. The restored
 * database is migrated and left safe before it is put in place: a backup is the past, payouts it
 * shows unfinished may have been sent since (restore/payout-holds.ts), and deposit addresses may have
 * been handed out since (restore/derivation-gap.ts).
 */
import Sqlite from 'better-sqlite3';
import { closeSync, existsSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { AppError } from '../errors.js';
import { openSqlite, writeTx } from '../db/database.js';
import type { DatabaseTarget } from '../config.js';
import { MIGRATIONS, migrateToLatest } from '../db/migrate.js';
import { holdAfterRestore, type HeldPayout } from './payout-holds.js';
import { RESTORE_GAP, estimateWatched, skipDerivationRange, type DerivationGap } from './derivation-gap.js';

/**
 * The SQLite file that `paygate backup`/`restore` copy. A PostgreSQL database is backed up by its
 * server's own tools (docs/operations/postgresql.md, "PostgreSQL"): the commands refuse it instead of copying.
 */
export function sqliteFile(target: DatabaseTarget, command: 'backup' | 'restore'): string {
  if (target.engine === 'sqlite') return target.path;
  throw new AppError(
    'invalid_argument',
    `paygate ${command} copies a SQLite file; DATABASE_URL names a PostgreSQL database: use pg_dump, or base backups with WAL archiving${command === 'restore' ? ', then paygate restore --in-place' : ''} (docs/operations/postgresql.md, "PostgreSQL")`,
  );
}

export interface Progress {
  totalPages: number;
  remainingPages: number;
}

export interface BackupResult {
  file: string;
  bytes: number;
  pages: number;
  integrity: 'ok';
  /** Latest migration the backup carries. */
  schema: string | null;
}

const STEP_PAGES = 1024;
/** The largest step better-sqlite3 accepts: the rest of the database in one step. */
const ALL_PAGES = 0x7fffffff;

function integrityOf(file: string): { ok: boolean; problem: string; schema: string | null } {
  let db: Sqlite.Database;
  try {
    db = new Sqlite(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    return { ok: false, problem: (e as Error).message, schema: null };
  }
  try {
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const problem = rows.map((r) => r.integrity_check).join('; ');
    const hasMigrations = db
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
      .get();
    const names = hasMigrations
      ? (db.prepare('select name from kysely_migration order by name').pluck().all() as string[])
      : [];
    return { ok: problem === 'ok', problem, schema: names.at(-1) ?? null };
  } catch (e) {
    return { ok: false, problem: (e as Error).message, schema: null };
  } finally {
    db.close();
  }
}

/** Creates `file` empty with mode 0600, refusing one that exists. */
function createPrivate(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST')
      throw new AppError('invalid_argument', `${file} already exists; refusing to overwrite it`);
    throw new AppError('invalid_argument', `cannot create ${file}: ${(e as Error).message}`);
  }
}

export async function backupDatabase(
  databasePath: string,
  file: string,
  onProgress: (p: Progress) => void = () => {},
): Promise<BackupResult> {
  if (!existsSync(databasePath))
    throw new AppError('invalid_argument', `No database at ${databasePath} (DATABASE_URL)`);
  if (existsSync(file)) throw new AppError('invalid_argument', `${file} already exists; refusing to overwrite it`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  createPrivate(partial);
  const source = new Sqlite(databasePath, { readonly: true, fileMustExist: true, timeout: 10_000 });
  try {
    let lastRemaining = Number.POSITIVE_INFINITY;
    let restarted = false;
    const { totalPages } = await source.backup(partial, {
      progress: ({ totalPages: total, remainingPages }) => {
        // A step that started over copies the first pages again, so what is left does not go
        // down: not necessarily up (a write between the first two steps leaves it equal). With
        // `>` only, a server committing between every two steps made the copy start over forever.
        if (remainingPages >= lastRemaining) restarted = true;
        lastRemaining = remainingPages;
        onProgress({ totalPages: total, remainingPages });
        // After a restart: every page in one step (one read transaction), however much the
        // database grew meanwhile.
        return restarted ? ALL_PAGES : STEP_PAGES;
      },
    });
    onProgress({ totalPages, remainingPages: 0 });
    // A self-contained file: rollback journal, so the copy is one file (no -wal beside it).
    const copy = new Sqlite(partial);
    copy.pragma('journal_mode = DELETE');
    copy.close();
    const check = integrityOf(partial);
    if (!check.ok) throw new AppError('internal_error', `The backup failed its integrity check: ${check.problem}`);
    try {
      linkSync(partial, file);
    } catch (e) {
      throw new AppError('invalid_argument', `cannot write ${file}: ${(e as Error).message}`);
    }
    return { file, bytes: statSync(file).size, pages: totalPages, integrity: 'ok', schema: check.schema };
  } finally {
    source.close();
    rmSync(partial, { force: true });
  }
}

export interface RestoreResult {
  database: string;
  from: string;
  /** Where the replaced database was kept (null when there was none). */
  previous: string | null;
  schema: string | null;
  /** The payout worker and the sweeper are halted until `paygate payout resume --worker`. */
  worker_halted: true;
  /** Payouts held until the chain since the backup is read, then the operator's decision (restore/payout-holds.ts). */
  payouts_held: number;
  /** Each held payout: what to look for among the hot wallet's transfers out since the backup. */
  held_payouts: HeldPayout[];
  /** Deposit indexes skipped and watched (restore/derivation-gap.ts); null when the backup has no wallet. */
  derivation_gap: DerivationGap | null;
}

export interface RestoreOptions {
  /** Deposit indexes to skip (RESTORE_GAP unless a test asks for fewer). */
  gap?: number;
  /** Indexes of the gap to watch; estimated from the backup's own rate when absent (restore/derivation-gap.ts). */
  watch?: number;
  /** Called as the gap's watched addresses are derived and stored. */
  onGapProgress?: (done: number, total: number) => void;
}

/**
 * Opens the database and takes its exclusive lock, or throws unless no process has it open and
 * no worker lease is live. The lock lasts until the returned connection is closed: while it is
 * held, any other process that opens the file cannot read or write it (SQLITE_BUSY). Null when
 * there is no database file.
 */
function lockDatabase(databasePath: string, now: Date): Sqlite.Database | null {
  if (!existsSync(databasePath)) return null;
  const db = new Sqlite(databasePath, { timeout: 0 });
  try {
    const lease = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'worker_lease'").get()
      ? (db.prepare('select holder, expires_at from worker_lease where id = 1').get() as
          { holder: string; expires_at: string } | undefined)
      : undefined;
    if (lease && lease.expires_at > now.toISOString()) {
      throw new AppError(
        'invalid_state',
        `The database is in use: the worker lease is held by ${lease.holder} until ${lease.expires_at}. Stop every paygate serve first`,
      );
    }
    // Every open connection (an idle serve, its checkpointer, a CLI command) holds a shared lock
    // in WAL mode; taking the exclusive lock fails at once while any exists.
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
      db.exec('COMMIT');
    } catch (e) {
      if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
        throw new AppError(
          'invalid_state',
          'The database is in use by another process (serve or a command). Stop it first',
        );
      }
      throw e;
    }
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** Throws unless no process has the database open and no worker lease is live. */
export function assertNotInUse(databasePath: string, now: Date): void {
  lockDatabase(databasePath, now)?.close();
}

/**
 * The restored copy, before it takes the database's place (no process can open it yet): brought to
 * this version's schema and left safe: payouts and sweeps halted, unfinished payouts held
 * (restore/payout-holds.ts), the deposit indexes that may have been handed out since the backup skipped
 * and watched (restore/derivation-gap.ts). Its WAL is folded in, so the file is complete when it is moved.
 */
async function makeSafe(
  copy: string,
  backup: string,
  now: Date,
  actor: string,
  opts: RestoreOptions,
): Promise<{ held: number; payouts: HeldPayout[]; gap: DerivationGap | null }> {
  const restored = openSqlite(copy);
  try {
    await migrateToLatest(restored.db);
    const { held, payouts } = await writeTx(restored.db, (trx) =>
      holdAfterRestore(trx, { now: () => now }, actor, backup),
    );
    const gap = await skipDerivationRange(
      restored.db,
      opts.gap ?? RESTORE_GAP,
      opts.watch ?? (await estimateWatched(restored.db, now)),
      now.toISOString(),
      `restore of ${backup} by ${actor}`,
      opts.onGapProgress,
    );
    restored.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    return { held, payouts, gap };
  } finally {
    await restored.close();
  }
}

export async function restoreDatabase(
  databasePath: string,
  file: string,
  now: Date,
  actor = 'restore',
  opts: RestoreOptions = {},
): Promise<RestoreResult> {
  if (!existsSync(file)) throw new AppError('invalid_argument', `No backup at ${file}`);
  const check = integrityOf(file);
  if (!check.ok) throw new AppError('invalid_argument', `${file} is not an intact paygate backup: ${check.problem}`);
  if (check.schema === null)
    throw new AppError('invalid_argument', `${file} is not a paygate database (no migrations recorded)`);
  if (!(check.schema in MIGRATIONS)) {
    throw new AppError(
      'invalid_argument',
      `${file} was written by a newer paygate (migration ${check.schema}); upgrade paygate first`,
    );
  }
  // The lock is held from this check to the swap, the copy included. Checked and released before
  // the copy, a process that opened the database meanwhile (a serve started during a long copy)
  // went on writing to the file moved aside and to a WAL that was deleted under it: its commits
  // were in neither database.
  const guard = lockDatabase(databasePath, now);
  const partial = `${databasePath}.restore-partial`;
  const dropPartial = () => {
    for (const side of ['', '-wal', '-shm', '-journal']) rmSync(`${partial}${side}`, { force: true });
  };
  try {
    dropPartial();
    createPrivate(partial);
    const source = new Sqlite(file, { readonly: true, fileMustExist: true });
    try {
      await source.backup(partial);
    } finally {
      source.close();
    }
    const copy = new Sqlite(partial);
    copy.pragma('journal_mode = WAL');
    copy.close();
    const { held, payouts, gap } = await makeSafe(partial, file, now, actor, opts);
    let previous: string | null = null;
    if (guard) {
      // Under the lock: fold the WAL in completely and make the old database one self-contained
      // file before it is moved aside (its -wal and -shm are removed below).
      const [folded] = guard.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      if (folded?.busy !== 0)
        throw new AppError(
          'invalid_state',
          'The database is in use by another process (serve or a command). Stop it first',
        );
      if (guard.pragma('journal_mode = DELETE', { simple: true }) !== 'delete') {
        throw new AppError('internal_error', `could not fold the WAL of ${databasePath} into it; nothing was changed`);
      }
      previous = `${databasePath}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
      renameSync(databasePath, previous);
    } else if (existsSync(databasePath)) {
      throw new AppError(
        'invalid_state',
        `A database appeared at ${databasePath} during the restore; nothing was changed`,
      );
    }
    for (const side of ['-wal', '-shm', '-journal']) rmSync(`${databasePath}${side}`, { force: true });
    renameSync(partial, databasePath);
    return {
      database: databasePath,
      from: file,
      previous,
      schema: check.schema,
      worker_halted: true,
      payouts_held: held,
      held_payouts: payouts,
      derivation_gap: gap,
    };
  } finally {
    guard?.close();
    dropPartial();
  }
}
