import { Args, Flags } from '@oclif/core';
import { readFileSync } from 'node:fs';
import { PaygateCommand, loadDotEnv } from '../src/cli/base.js';
import { progressBar, type Progress } from '../src/cli/progress.js';
import { record, table } from '../src/cli/format.js';
import { parseConfig } from '../src/config.js';
import { AppError } from '../src/errors.js';
import { migrateToPostgres, type MigrateToResult } from '../src/operations/migrate-to.js';

/** The variable that carries the target URL (with its password) instead of the command line. */
const TARGET_URL_VARIABLE = 'PAYGATE_MIGRATE_TO_URL';

const TWO_WAYS = `set ${TARGET_URL_VARIABLE}, or pass --url-file FILE (a file holding the URL)`;

/**
 * The target URL from --url-file or PAYGATE_MIGRATE_TO_URL, never from an argument: an argument
 * (and the password in it) shows in `ps` to every user of the host and stays in shell history.
 */
function targetUrlOf(positional: string | undefined, urlFile: string | undefined): string {
  if (positional !== undefined)
    throw new AppError(
      'invalid_argument',
      `migrate-to does not take the PostgreSQL URL as an argument (it would show in ps and in shell history): ${TWO_WAYS}`,
    );
  const fromEnv = process.env[TARGET_URL_VARIABLE]?.trim() || undefined;
  if (urlFile !== undefined && fromEnv !== undefined)
    throw new AppError(
      'invalid_argument',
      `Give the target once: either ${TARGET_URL_VARIABLE} or --url-file, not both`,
    );
  if (urlFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(urlFile, 'utf8');
    } catch (e) {
      throw new AppError('invalid_argument', `--url-file: cannot read ${urlFile}: ${(e as Error).message}`);
    }
    const url = text.trim();
    if (url === '') throw new AppError('invalid_argument', `--url-file: ${urlFile} is empty`);
    return url;
  }
  if (fromEnv === undefined) throw new AppError('invalid_argument', `No target PostgreSQL database: ${TWO_WAYS}`);
  return fromEnv;
}

export default class MigrateTo extends PaygateCommand {
  static override description =
    'Move this SQLite instance (DATABASE_URL) to an empty PostgreSQL database, named by PAYGATE_MIGRATE_TO_URL or by the file --url-file (never an argument: it would show in ps and shell history): the target is migrated to the same schema version, every table copied in one transaction (ids and amounts as they are), its sequences moved past the copied ids, and the copy checked (rows of every table, every merchant ledger balance) before it commits. Refuses a target holding any row, and a source in use (a live worker lease or any process with the file open: stop every serve first). The SQLite file is only read. Progress shows on a terminal (stderr), never with --json or when stderr is not a terminal. Then set DATABASE_URL to the PostgreSQL URL and start serve (docs/operations/postgresql.md, "Moving to PostgreSQL").';
  static override examples = [
    'systemctl stop paygate && <%= config.bin %> migrate-to --url-file /etc/paygate/postgres-url',
    'DATABASE_URL=/var/lib/paygate/paygate.db PAYGATE_MIGRATE_TO_URL="$(cat /run/secrets/pg-url)" <%= config.bin %> migrate-to --json',
  ];
  static override flags = {
    'url-file': Flags.string({
      description: `a file holding the PostgreSQL URL to fill (postgres://…, one line; the database must be empty). Or set ${TARGET_URL_VARIABLE}`,
    }),
  };
  static override args = {
    url: Args.string({
      required: false,
      description: `refused: the URL goes in ${TARGET_URL_VARIABLE} or --url-file, never on the command line`,
    }),
  };

  async run(): Promise<MigrateToResult> {
    const { args, flags } = await this.parse(MigrateTo);
    loadDotEnv();
    const target = targetUrlOf(args.url, flags['url-file']);
    const config = parseConfig(process.env);
    const json = this.jsonEnabled();
    let current = '';
    let progress: Progress | null = null;
    let result: MigrateToResult;
    try {
      result = await migrateToPostgres(config, target, new Date(), {
        // One bar per table, as it is copied.
        onProgress: (name, copied, total) => {
          if (name !== current) {
            progress?.stop();
            progress = progressBar(`migrate-to ${name}`, 'rows', { json });
            current = name;
          }
          progress?.update(copied, total);
        },
      });
    } finally {
      (progress as Progress | null)?.stop();
    }
    this.say(table(result.tables as unknown as Array<Record<string, unknown>>, ['table', 'rows']));
    this.say(
      `\n${record({
        source: result.source,
        target: result.target,
        schema: result.schema,
        rows: result.rows,
        balances: `${result.balances} balances of ${result.merchants} merchants equal`,
        sequences: result.sequences.map((s) => `${s.table}.${s.column} next ${s.next}`).join(', '),
        verified: result.verified,
      })}`,
    );
    this.say(
      `\nThe copy is verified. Set DATABASE_URL=<the PostgreSQL URL> for every serve and command, then start serve. The SQLite file is left as it was.`,
    );
    return result;
  }
}
