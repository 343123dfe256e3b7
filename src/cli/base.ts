/**
 * Base of every CLI command: `--json` on all of them, errors as `{"error":{"code","message"}}`
 * with a non-zero exit, and a context (config, database, clock, actor) opened once per command.
 * Commands stay thin: parse flags, call src/, return a typed result that becomes the JSON output.
 */
import { Command, Errors } from '@oclif/core';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { systemClock, type Clock } from '../clock.js';
import { ConfigError, parseConfig, type Config } from '../config.js';
import { openDatabase, type Database } from '../db/database.js';
import { assertMigrated, migrateToLatest, type MigrationReport } from '../db/migrate.js';
import { assertDatabaseFileExists, assertSchemaPresent } from '../db/presence.js';
import { isAppError, type ErrorCode } from '../errors.js';
import { assertNoLiveLease } from '../runtime/lease.js';
import { useMail } from '../mail/wiring.js';

export interface CliContext {
  config: Config;
  database: Database;
  clock: Clock;
  /** Recorded in the audit log for every operator action. */
  actor: string;
}

/** Loads `.env` from the working directory once, before the config is parsed. */
export function loadDotEnv(): void {
  if (existsSync('.env')) process.loadEnvFile('.env');
}

export function cliActor(): string {
  let name = 'unknown';
  try {
    name = userInfo().username;
  } catch {
    /* no passwd entry in some containers */
  }
  return `cli:${name}`;
}

export function errorBody(err: unknown): { error: { code: ErrorCode | string; message: string } } {
  if (isAppError(err)) return { error: { code: err.code, message: err.message } };
  if (err instanceof ConfigError) return { error: { code: 'invalid_argument', message: err.message } };
  if (err instanceof Errors.CLIError) {
    const message = err.message
      .replace(/\n\s*See more help with --help\s*$/, '')
      .replace(/^The following errors? occurred:\s*/, '')
      .replace(/^Parsing (--[a-z-]+)\s*\n\s*/, '$1 ')
      // oclif names a missing flag without its dashes ("Missing required flag name").
      .replace(/Missing required flag ([a-z][a-z0-9-]*)/g, 'Missing required flag --$1')
      .replace(/:\s*\n\s*/g, ': ')
      .replace(/\s*\n\s*/g, '; ')
      .trim();
    return { error: { code: 'invalid_argument', message } };
  }
  return { error: { code: 'internal_error', message: err instanceof Error ? err.message : String(err) } };
}

export abstract class PaygateCommand extends Command {
  static override enableJsonFlag = true;
  /**
   * Whether this command applies pending migrations (migrate, init): those create the database
   * when there is none, and refuse while a worker lease is live. Every other command refuses a
   * database that does not exist (`database_not_found`: a mistyped location must not look like an
   * empty instance) and one that needs an upgrade: the operator migrates on purpose, and a routine
   * command never changes the schema under a running serve.
   */
  static appliesMigrations = false;
  private opened: Database | null = null;
  /** What context() applied, for commands that apply migrations (`migrate` reports it). */
  protected migrationReport: MigrationReport | null = null;

  /** Opens the configured database (applying pending migrations) for the rest of the command. */
  protected async context(): Promise<CliContext> {
    loadDotEnv();
    const config = parseConfig(process.env);
    // A change made here (a refund, an approval) queues its mail as it would under serve.
    useMail(config);
    const migrates = (this.constructor as typeof PaygateCommand).appliesMigrations;
    // Before opening: opening a SQLite file creates it.
    if (!migrates) assertDatabaseFileExists(config);
    const database = openDatabase(config.database);
    this.opened = database;
    if (migrates) {
      // Never under a running serve: it would go on with the old schema, or with another wallet.
      await assertNoLiveLease(database.db, systemClock);
      this.migrationReport = await migrateToLatest(database.db);
    } else {
      await assertSchemaPresent(database.db, config);
      await assertMigrated(database.db);
    }
    return { config, database, clock: systemClock, actor: cliActor() };
  }

  protected override async catch(err: Error & { exitCode?: number }): Promise<void> {
    // oclif's own exits (help, version) pass through untouched.
    if (err instanceof Errors.ExitError) throw err;
    const body = errorBody(err);
    if (this.jsonEnabled() || this.argv.includes('--json')) {
      this.logJson(body);
    } else {
      this.logToStderr(`Error (${body.error.code}): ${body.error.message}`);
    }
    process.exitCode = body.error.code === 'internal_error' ? 2 : 1;
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    await this.opened?.close();
    this.opened = null;
    await super.finally(err);
  }

  /** Prints human output unless --json (then the returned value is the output). */
  protected say(text: string): void {
    if (!this.jsonEnabled()) this.log(text);
  }
}
