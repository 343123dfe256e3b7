import { Args } from '@oclif/core';
import { PaygateCommand, loadDotEnv } from '../src/cli/base.js';
import { record } from '../src/cli/format.js';
import { progressBar } from '../src/cli/progress.js';
import { parseConfig } from '../src/config.js';
import { assertDatabaseFileExists } from '../src/db/presence.js';
import { backupDatabase, sqliteFile, type BackupResult } from '../src/restore/backup.js';

export default class Backup extends PaygateCommand {
  static override description =
    'Copy the database to <file> while serve keeps running: a consistent snapshot, integrity-checked, mode 0600, never overwriting an existing file. Progress shows on a terminal (stderr), never with --json or when stderr is not a terminal. The wallet keystore is a separate file: back it up once, apart from the database.';
  static override examples = [
    '<%= config.bin %> backup /var/backups/paygate/paygate-$(date -u +%Y%m%dT%H%MZ).db',
    '<%= config.bin %> backup ./before-upgrade.db --json',
  ];
  static override args = {
    file: Args.string({ required: true, description: 'where to write the backup (must not exist)' }),
  };

  async run(): Promise<BackupResult> {
    const { args } = await this.parse(Backup);
    loadDotEnv();
    const config = parseConfig(process.env);
    assertDatabaseFileExists(config);
    const progress = progressBar('backup', 'pages', { json: this.jsonEnabled() });
    let result: BackupResult;
    try {
      result = await backupDatabase(
        sqliteFile(config.database, 'backup'),
        args.file,
        ({ totalPages, remainingPages }) => progress.update(totalPages - remainingPages, totalPages),
      );
    } finally {
      progress.stop();
    }
    this.say(record({ ...result }));
    return result;
  }
}
