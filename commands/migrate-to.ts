import { Args } from '@oclif/core';
import { PaygateCommand, loadDotEnv } from '../src/cli/base.js';
import { record, table } from '../src/cli/format.js';
import { parseConfig } from '../src/config.js';
import { migrateToPostgres, type MigrateToResult } from '../src/operations/migrate-to.js';

export default class MigrateTo extends PaygateCommand {
  static override description =
    'Move this SQLite instance (DATABASE_URL) to an empty PostgreSQL database: the target is migrated to the same schema version, every table copied in one transaction (ids and amounts as they are), its sequences moved past the copied ids, and the copy checked (rows of every table, every merchant ledger balance) before it commits. Refuses a target holding any row, and a source in use (a live worker lease or any process with the file open: stop every serve first). The SQLite file is only read. Progress goes to stderr. Then set DATABASE_URL to the PostgreSQL URL and start serve (docs/operations.md, "Moving to PostgreSQL").';
  static override examples = [
    'systemctl stop paygate && <%= config.bin %> migrate-to postgres://paygate:secret@db.internal:5432/paygate',
    'DATABASE_URL=/var/lib/paygate/paygate.db <%= config.bin %> migrate-to postgres://paygate@10.0.0.20/paygate --json',
  ];
  static override args = {
    url: Args.string({ required: true, description: 'the PostgreSQL database to fill (postgres://…; must be empty)' }),
  };

  async run(): Promise<MigrateToResult> {
    const { args } = await this.parse(MigrateTo);
    loadDotEnv();
    const config = parseConfig(process.env);
    let shown = '';
    const result = await migrateToPostgres(config, args.url, new Date(), {
      onProgress: (name, copied, total) => {
        if (this.jsonEnabled() || (copied < total && name === shown)) return;
        shown = name;
        process.stderr.write(`migrate-to: ${name} ${copied}/${total} rows\n`);
      },
    });
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
